/**
 * No outside input reaches a signing purpose with its state broken (docs/decisions.md §42): the
 * real daemon and sandbox, the stack's daemon in this process, so a purpose entered broken would
 * stop this very test process (exit 70). Unknown and malformed ids, calls the key does not sign,
 * replays of an AP2 mandate request, and cancels racing the signatures of held windows are each
 * answered from the error table (never 5xx), and the daemon stays up.
 */
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { addAgent } from '../../src/datadir/agents.js';
import { startStack, type HttpAnswer, type Stack } from '../support/stack.js';

let stack: Stack;
before(async () => {
  stack = await startStack();
  writeFileSync(path.join(stack.home, 'policy.json'), JSON.stringify({ v: 1, default: 'allow', rules: [] }), { mode: 0o600 });
  addAgent(stack.home, 'shopper');
});
after(() => stack.close());

function refused(answer: HttpAnswer, status: number, code: string, what: string): void {
  assert.equal(answer.status, status, `${what}: ${answer.text}`);
  assert.equal(answer.body?.error?.code, code, `${what}: ${answer.text}`);
}

async function stillUp(): Promise<void> {
  const health = await stack.a.get('/health');
  assert.equal(health.status, 200, 'the daemon is still up');
}

test('unknown and malformed ids, and calls the device key does not sign, are answered 4xx before anything is signed', async () => {
  const shopper = stack.agent('shopper');
  refused(await stack.a.get('/authorizations/pw_unknown0000000000000000/evidence'), 404, 'authorization_not_found', 'the evidence pack of an unknown id');
  refused(await stack.a.post('/authorizations/pw_unknown0000000000000000/cancel', {}), 404, 'authorization_not_found', 'a cancel of an unknown id');
  refused(await shopper.post('/x402/authorizations/xa_unknown0000000000000000/release', {}), 404, 'authorization_not_found', 'an x402 release of an unknown id');
  refused(await stack.a.get('/v1/cards/card.1'), 400, 'invalid_request', 'a proxied id the cloud calls do not take');
  refused(await stack.a.get(`/v1/cards/card_${'a'.repeat(130)}`), 400, 'invalid_request', 'a proxied id too long for a cloud call');
  refused(await stack.a.post('/v1/sandbox/deposit', {}), 403, 'proxy_route_not_allowed', 'a cloud route off the allow-list');
  refused(await shopper.post('/web-bot-auth/sign', { url: 'https://shop.example/', tag: 'http-message-signatures-directory' }), 400, 'invalid_request', 'a web signature under the directory\'s tag');
  // A revocation only takes authority away: the primitive signs one for an id the ledger does not keep (§42).
  const revocation = await stack.a.post('/sign-revocation', { policy_id: 'pw_unknown0000000000000000' });
  assert.equal(revocation.status, 200, revocation.text);
  // A malformed challenge gets no key proof, and the daemon answers as ever.
  for (const challenge of [`${'A'.repeat(43)}\tlatch`, `${'A'.repeat(42)}+`, `${'A'.repeat(42)}/`, `${'A'.repeat(41)}==`, 'A'.repeat(44)]) {
    const health = await fetch(`http://127.0.0.1:${stack.portA}/health`, { headers: { 'latch-challenge': challenge } });
    assert.equal(health.status, 200);
    assert.equal(health.headers.get('latch-key-proof'), null, challenge);
  }
  await stillUp();
});

test('replays of one AP2 mandate request, at once and after: one pair of mandates signed, every other answer the same or 409', async () => {
  const shopper = stack.agent('shopper');
  const agentKey = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ format: 'jwk' });
  const body = { card_id: stack.cards[0].card_id, merchant: { name: 'Shop', website: 'https://replay.example' }, amount_max: '5.00', currency: 'USD', items: [{ id: 'sku-1', title: 'Mug', quantity: 1 }], ttl_minutes: 10, agent_key: agentKey };
  const headers = { 'idempotency-key': 'signing-purposes-replay' };
  const answers = [...(await Promise.all(Array.from({ length: 8 }, () => shopper.post('/ap2/mandates', body, headers)))), await shopper.post('/ap2/mandates', body, headers)];
  for (const answer of answers) assert.ok(answer.status === 201 || (answer.status === 409 && answer.body?.error?.code === 'idempotency_key_in_use'), answer.text);
  const made = answers.filter((answer) => answer.status === 201);
  assert.ok(made.length >= 1, 'the request was answered');
  assert.equal(new Set(made.map((answer) => answer.body.mandate_id)).size, 1, 'every answer carries the same mandates');
  const policyId = made[0]?.body.policy_id as string;
  const signed = readFileSync(path.join(stack.home, 'audit.log'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line['operation'] === 'ap2_mandate_signed' && line['policy_id'] === policyId);
  assert.equal(signed.length, 1, 'one pair of mandates was signed');
  await stillUp();
});

test('replays of one /authorize at once: the window registered stays active in the ledger (its budget counted), every other answer the same or 409', async () => {
  const shopper = stack.agent('shopper');
  const body = { card_id: stack.cards[0].card_id, amount: '1.00', merchant_name: 'replay-authorize.example.com' };
  const answers = await Promise.all(Array.from({ length: 8 }, () => shopper.post('/authorize', body, { 'idempotency-key': 'signing-purposes-authorize' })));
  for (const answer of answers) assert.ok(answer.status === 200 || (answer.status === 409 && answer.body?.error?.code === 'idempotency_key_in_use'), answer.text);
  const made = answers.filter((answer) => answer.status === 200);
  assert.ok(made.length >= 1, 'the request was answered');
  const listed = (await stack.a.get('/authorizations?limit=100')).body.authorizations as Array<Record<string, unknown>>;
  const entries = listed.filter((entry) => entry['merchant_name'] === 'replay-authorize.example.com');
  assert.deepEqual(entries.map((entry) => entry['status']), ['active'], 'one entry, active: a racing replay\'s 409 from the cloud is no refusal of the window');
  await stillUp();
});

test('cancels racing the signatures of held windows, and their evidence packs: 2xx or 4xx, never 5xx, and the daemon stays up', async () => {
  const signing = Array.from({ length: 12 }, (_, i) => stack.a.post('/sign-card-policy-window', { card_id: stack.cards[0].card_id, amount: '1.00', merchant_name: `race-${i}.example.com` }));
  const answers: HttpAnswer[] = [];
  let done = false;
  const settled = Promise.all(signing).finally(() => (done = true));
  // While they are signed: list every entry and cancel each active one, and ask for its pack.
  for (let round = 0; round < 200 && !done; round++) {
    const listed = await stack.a.get('/authorizations?limit=100');
    assert.equal(listed.status, 200, listed.text);
    const active = (listed.body.authorizations as Array<Record<string, unknown>>).filter((entry) => entry['status'] === 'active' && String(entry['merchant_name']).startsWith('race-'));
    answers.push(...(await Promise.all(active.flatMap((entry) => [stack.a.post(`/authorizations/${String(entry['policy_id'])}/cancel`, {}), stack.a.get(`/authorizations/${String(entry['policy_id'])}/evidence`)]))));
  }
  for (const answer of await settled) assert.ok(answer.status === 200 || (answer.status === 409 && answer.body?.error?.code === 'authorization_not_active'), answer.text);
  for (const answer of answers) assert.ok(answer.status < 500, answer.text);
  assert.ok(answers.length > 0, 'some cancels raced the signatures');
  await stillUp();
});

/**
 * Human approval end to end (docs/decisions.md §15.4), on the real daemon and sandbox: an agent's
 * request that the policy answers `ask` is a 202 pending approval on both listeners; the owner
 * approves or denies it once; approving signs exactly the stored request; retries with the same
 * key never create a second approval; the passphrase and its lockout hold across a restart.
 */
import assert from 'node:assert/strict';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { createDaemon } from '../../src/daemon/create-daemon.js';
import { addAgent, readAgentToken } from '../../src/datadir/agents.js';
import { clearApprovalPassphrase, setApprovalPassphrase } from '../../src/datadir/approval-passphrase.js';
import { readToken } from '../../src/datadir/token.js';
import { assertError } from '../support/e2e-assert.js';
import { JsonClient, startStack, type HttpAnswer, type Stack } from '../support/stack.js';
import { waitUntil } from '../support/wait.js';

// Small amounts, so the sandbox cards' balances last through every approval below.
const POLICY = { v: 1, default: 'allow', rules: [{ id: 'large', min_amount: '5.00', decision: 'ask' }] };
const PASSPHRASE = 'correct horse battery';

let stack: Stack;
let shopper: JsonClient;
let shopperB: JsonClient;
let travel: JsonClient;
let owner: JsonClient;
let keySeq = 0;

before(async () => {
  stack = await startStack();
  writeFileSync(path.join(stack.home, 'policy.json'), JSON.stringify(POLICY), { mode: 0o600 });
  addAgent(stack.home, 'shopper');
  addAgent(stack.home, 'travel');
  shopper = stack.agent('shopper');
  shopperB = new JsonClient(`http://127.0.0.1:${stack.portB}`, () => readAgentToken(stack.home, 'shopper'));
  travel = stack.agent('travel');
  owner = stack.a;
});
after(() => stack.close());

const sandboxAuthorizations = () => stack.sandbox.state().authorizations.size;
const newKey = () => `approval-e2e-${++keySeq}`;
const askBody = (amount = '6.00', merchant = 'big.example.com') => ({ card_id: stack.cards[0].card_id, amount, merchant_name: merchant });

async function ask(key = newKey(), body: Record<string, unknown> = askBody()): Promise<{ answer: HttpAnswer; key: string }> {
  const answer = await shopper.post('/authorize', body, { 'idempotency-key': key });
  assert.equal(answer.status, 202, answer.text);
  return { answer, key };
}

describe('the whole flow on A', () => {
  test('an ask is 202 with the approval object and Retry-After; nothing is signed or sent to the cloud', async () => {
    const before = sandboxAuthorizations();
    const { answer } = await ask();
    assert.match(answer.body.approval_id, /^ap_[a-z0-9]{24}$/);
    assert.equal(answer.body.status, 'pending_approval');
    assert.equal(answer.body.agent, 'shopper');
    assert.equal(answer.body.rule, 'large');
    assert.ok(Array.isArray(answer.body.reasons));
    assert.deepEqual(answer.body.request, { kind: 'one_time', card_id: stack.cards[0].card_id, merchant_name: 'big.example.com', amount: '6.00', currency: 'USD', authorization_type: 'exact', ttl_seconds: 1800 });
    assert.match(answer.body.request_sha256, /^[0-9a-f]{64}$/);
    assert.ok(Date.parse(answer.body.expires_at) - Date.parse(answer.body.created_at) === 900_000);
    const retryAfter = Number(answer.headers.get('retry-after'));
    assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 5);
    assert.equal(sandboxAuthorizations(), before);
  });

  test('below the rule the same agent is allowed at once (200)', async () => {
    const answer = await shopper.post('/authorize', askBody('1.00'));
    assert.equal(answer.status, 200, answer.text);
  });

  test('the same key and body while pending return the same approval, another body is idempotency_key_reused', async () => {
    const { answer, key } = await ask();
    const again = await shopper.post('/authorize', askBody(), { 'idempotency-key': key });
    assert.equal(again.status, 202);
    assert.equal(again.body.approval_id, answer.body.approval_id);
    const other = await shopper.post('/authorize', askBody('6.01'), { 'idempotency-key': key });
    assertError(other, 422, 'idempotency_key_reused');
    const listed = await owner.get('/approvals?status=pending_approval&limit=100');
    assert.equal(listed.body.approvals.filter((a: { approval_id: string }) => a.approval_id === answer.body.approval_id).length, 1);
  });

  test('visibility: the asking agent and the owner see it, another agent gets 404 approval_not_found', async () => {
    const { answer } = await ask();
    const id = answer.body.approval_id as string;
    assert.equal((await shopper.get(`/approvals/${id}`)).status, 200);
    assert.equal((await owner.get(`/approvals/${id}`)).status, 200);
    assertError(await travel.get(`/approvals/${id}`), 404, 'approval_not_found');
    assertError(await owner.get('/approvals/ap_doesnotexist1'), 404, 'approval_not_found');
    assertError(await owner.get('/approvals/not-an-id'), 404, 'approval_not_found');
    const travelList = await travel.get('/approvals');
    assert.equal(travelList.status, 200);
    assert.deepEqual(travelList.body.approvals, []);
    const mine = await shopper.get('/approvals?limit=100');
    assert.ok(mine.body.approvals.every((a: { agent: string }) => a.agent === 'shopper'));
  });

  test('an agent cannot approve or deny (its own or any): 403 agent_not_permitted, and it stays pending', async () => {
    const { answer } = await ask();
    const id = answer.body.approval_id as string;
    assertError(await shopper.post(`/approvals/${id}/approve`, {}), 403, 'agent_not_permitted');
    assertError(await shopper.post(`/approvals/${id}/deny`, {}), 403, 'agent_not_permitted');
    assertError(await shopperB.post(`/approvals/${id}/approve`, {}), 404, 'not_found');
    assert.equal((await owner.get(`/approvals/${id}`)).body.status, 'pending_approval');
  });

  test('the owner approves: exactly the stored request is signed and registered; the retry gets that authorization', async () => {
    const { answer, key } = await ask();
    const id = answer.body.approval_id as string;
    const before = sandboxAuthorizations();
    const approved = await owner.post(`/approvals/${id}/approve`, {});
    assert.equal(approved.status, 200, approved.text);
    assert.equal(approved.body.status, 'approved');
    const authorization = approved.body.authorization;
    assert.equal(authorization.amount, '6.00');
    assert.equal(authorization.merchant_name, 'big.example.com');
    assert.equal(authorization.card_id, stack.cards[0].card_id);
    assert.equal(sandboxAuthorizations(), before + 1);

    const retry = await shopper.post('/authorize', askBody(), { 'idempotency-key': key });
    assert.equal(retry.status, 200, retry.text);
    assert.equal(retry.body.policy_id, authorization.policy_id);
    assert.equal(sandboxAuthorizations(), before + 1, 'the retry signs nothing new');
    assertError(await owner.post(`/approvals/${id}/approve`, {}), 409, 'approval_not_pending');
    assertError(await owner.post(`/approvals/${id}/deny`, {}), 409, 'approval_not_pending');
    const listed = await shopper.get(`/authorizations/${authorization.policy_id}`);
    assert.equal(listed.status, 200, listed.text);
    assert.equal(listed.body.agent, 'shopper', 'signed as the agent that asked');

    const charge = await stack.charge(stack.cards[0].card_id, 'big.example.com', '6.00');
    assert.equal(charge.status, 200, charge.text);
    assert.equal(charge.body.decision, 'approved', charge.text);
  });

  test('a reference is shown with the terms the owner approves, and signed into the approved window', async () => {
    const { answer } = await ask(newKey(), { ...askBody('7.00', 'ref.example.com'), reference: 'order #991' });
    assert.equal(answer.body.request.reference, 'order #991');
    const approved = await owner.post(`/approvals/${answer.body.approval_id as string}/approve`, {});
    assert.equal(approved.status, 200, approved.text);
    const detail = await owner.get(`/transactions/${approved.body.authorization.transaction_id as string}`);
    const payload = JSON.parse(Buffer.from((detail.body.policy_window.jws as string).split('.')[1] as string, 'base64url').toString('utf8')) as Record<string, unknown>;
    assert.equal(payload['reference'], 'order #991');
  });

  test('the owner denies with a reason: the retry is 403 approval_denied and GET shows the reason', async () => {
    const { answer, key } = await ask();
    const id = answer.body.approval_id as string;
    const denied = await owner.post(`/approvals/${id}/deny`, { reason: 'too much' });
    assert.equal(denied.status, 200, denied.text);
    assert.equal(denied.body.status, 'denied');
    assert.equal(denied.body.reason, 'too much');
    assertError(await shopper.post('/authorize', askBody(), { 'idempotency-key': key }), 403, 'approval_denied');
    assert.equal((await shopper.get(`/approvals/${id}`)).body.reason, 'too much');
    assertError(await owner.post(`/approvals/${id}/approve`, {}), 409, 'approval_not_pending');
  });

  test('20 concurrent approvals of one request sign exactly once', async () => {
    const { answer } = await ask();
    const id = answer.body.approval_id as string;
    const before = sandboxAuthorizations();
    const answers = await Promise.all(Array.from({ length: 20 }, () => owner.post(`/approvals/${id}/approve`, {})));
    const statuses = answers.map((a) => a.status).sort();
    assert.deepEqual(statuses, [200, ...Array(19).fill(409)]);
    for (const refused of answers.filter((a) => a.status === 409)) assert.equal(refused.body.error.code, 'approval_not_pending');
    assert.equal(sandboxAuthorizations(), before + 1);
  });

  test('approve and deny racing: exactly one decision wins', async () => {
    const { answer } = await ask();
    const id = answer.body.approval_id as string;
    const [approved, denied] = await Promise.all([owner.post(`/approvals/${id}/approve`, {}), owner.post(`/approvals/${id}/deny`, {})]);
    assert.deepEqual([approved.status, denied.status].sort(), [200, 409]);
    const final = (await owner.get(`/approvals/${id}`)).body.status;
    assert.equal(final, approved.status === 200 ? 'approved' : 'denied');
  });

  test('Prefer: wait=N holds the answer for the decision: approved → 200 with the authorization', async () => {
    const key = newKey();
    const held = shopper.post('/authorize', askBody('7.00'), { 'idempotency-key': key, prefer: 'wait=30' });
    const id = await waitUntil(async () => {
      const pending = await owner.get('/approvals?status=pending_approval&limit=100');
      return pending.body.approvals.find((a: { request: { amount: string } }) => a.request.amount === '7.00')?.approval_id as string | undefined;
    }, 'the held request\'s approval is listed as pending');
    const approved = await owner.post(`/approvals/${id}/approve`, {});
    assert.equal(approved.status, 200, approved.text);
    const answer = await held;
    assert.equal(answer.status, 200, answer.text);
    assert.equal(answer.body.policy_id, approved.body.authorization.policy_id);
  });

  test('Prefer: wait=0, malformed or absent answers 202 at once', async () => {
    for (const prefer of ['wait=0', 'wait=abc', 'wait=-5', 'respond-async']) {
      const answer = await shopper.post('/authorize', askBody(), { 'idempotency-key': newKey(), prefer });
      assert.equal(answer.status, 202, prefer);
    }
  });
});

describe('B, and the other kinds', () => {
  test("B's /authorize answers 202 with the approval; approving makes the retry B's 200 answer", async () => {
    const key = newKey();
    const body = { card_id: stack.cards[0].card_id, amount: 5.5, merchant: 'bee.example.com' };
    const first = await shopperB.post('/authorize', body, { 'idempotency-key': key });
    assert.equal(first.status, 202, first.text);
    assert.equal(first.body.status, 'pending_approval');
    assert.equal(first.body.request.amount, '5.50');
    const approved = await owner.post(`/approvals/${first.body.approval_id}/approve`, {});
    assert.equal(approved.status, 200, approved.text);
    const retry = await shopperB.post('/authorize', body, { 'idempotency-key': key });
    assert.equal(retry.status, 200, retry.text);
    assert.equal(retry.body.status, 'authorized');
    assert.match(retry.body.tx_id, /^tx_/);
  });

  test('/recurring and /merchant-bind ask too, and keep their terms in the approval', async () => {
    const recurring = await shopper.post('/recurring', { card_id: stack.cards[1].card_id, merchant_name: 'stream.example.com', amount: '5.00', interval: 'month' });
    assert.equal(recurring.status, 202, recurring.text);
    assert.equal(recurring.body.request.kind, 'recurring');
    assert.equal(recurring.body.request.interval, 'month');
    const approved = await owner.post(`/approvals/${recurring.body.approval_id}/approve`, {});
    assert.equal(approved.status, 200, approved.text);
    assert.equal(approved.body.authorization.kind, 'recurring');
  });
});

describe('the passphrase and its lockout', () => {
  test('one lockout for every passphrase check: five wrong at POST /owner/sessions lock approving too', async () => {
    const { answer } = await ask();
    setApprovalPassphrase(stack.home, PASSPHRASE);
    try {
      for (let i = 0; i < 5; i++) assertError(await owner.post('/owner/sessions', { passphrase: `wrong guess ${i}` }), 401, 'invalid_passphrase');
      assertError(await owner.post(`/approvals/${answer.body.approval_id}/approve`, { passphrase: PASSPHRASE }), 429, 'too_many_attempts');
    } finally {
      // The count belongs to this passphrase: clearing it ends the lock for the tests below.
      clearApprovalPassphrase(stack.home);
    }
  });

  test('with a passphrase: missing is 403 owner_presence_required, wrong is 401 invalid_passphrase, right approves', async () => {
    setApprovalPassphrase(stack.home, PASSPHRASE);
    try {
      const { answer } = await ask();
      const id = answer.body.approval_id as string;
      assertError(await owner.post(`/approvals/${id}/approve`, {}), 403, 'owner_presence_required');
      const wrong = await owner.post(`/approvals/${id}/approve`, { passphrase: 'not it at all' });
      assertError(wrong, 401, 'invalid_passphrase');
      assert.ok(!wrong.text.includes('not it at all'), 'the error does not echo the wrong passphrase');
      const approved = await owner.post(`/approvals/${id}/approve`, { passphrase: PASSPHRASE });
      assert.equal(approved.status, 200, approved.text);
      assert.ok(!approved.text.includes(PASSPHRASE));
      // Deny needs no passphrase: it only takes authority away.
      const other = await ask();
      assert.equal((await owner.post(`/approvals/${other.answer.body.approval_id}/deny`, {})).status, 200);
      assert.ok(!stack.logs().includes(PASSPHRASE), 'never logged');
      assert.ok(!readFileSync(path.join(stack.home, 'audit.log'), 'utf8').includes(PASSPHRASE), 'never audited');
      for (const secret of [PASSPHRASE, 'not it at all']) {
        assert.ok(!stack.logs().includes(secret), `${secret}: never logged`);
        assert.ok(!readFileSync(path.join(stack.home, 'state.journal'), 'utf8').includes(secret), `${secret}: never in state.journal`);
      }
    } finally {
      clearApprovalPassphrase(stack.home);
    }
  });
});

describe('audit lines', () => {
  test('requested, approved and denied lines carry the approval id and the request SHA-256', async () => {
    const lines = readFileSync(path.join(stack.home, 'audit.log'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    for (const operation of ['approval_requested', 'approval_approved', 'approval_denied']) {
      const found = lines.filter((line) => line['operation'] === operation);
      assert.ok(found.length > 0, operation);
      for (const line of found) {
        assert.match(line['approval_id'] as string, /^ap_/);
        assert.match(line['request_sha256'] as string, /^[0-9a-f]{64}$/);
      }
    }
    const requested = lines.find((line) => line['operation'] === 'approval_requested');
    assert.equal(requested?.['agent'], 'shopper');
    const approved = lines.find((line) => line['operation'] === 'approval_approved');
    assert.equal(approved?.['agent'], 'owner');
    assert.equal(approved?.['requested_by'], 'shopper');
  });
});

describe('notification', () => {
  test('approval_notify runs the program (argv, no shell) with only the approval id, summary, PATH and HOME', async () => {
    const script = path.join(stack.root, 'notify.sh');
    const out = path.join(stack.root, 'notify.env');
    writeFileSync(script, `#!/bin/sh\nenv > "$1.tmp" && mv "$1.tmp" "$1"\n`, { mode: 0o700 });
    const configFile = path.join(stack.home, 'config.json');
    const config = JSON.parse(readFileSync(configFile, 'utf8')) as Record<string, unknown>;
    writeFileSync(configFile, JSON.stringify({ ...config, approval_notify: [script, out] }), { mode: 0o600 });
    chmodSync(configFile, 0o600);
    try {
      const { answer } = await ask();
      await waitUntil(() => existsSync(out), 'the notifier has written its environment');
      const env = new Map(
        readFileSync(out, 'utf8')
          .trim()
          .split('\n')
          .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)] as const),
      );
      assert.equal(env.get('LATCH_APPROVAL_ID'), answer.body.approval_id);
      assert.match(env.get('LATCH_APPROVAL_SUMMARY') ?? '', /^shopper asks 6\.00 USD at big\.example\.com on card card_/);
      assert.equal(env.has('LATCH_HOME'), false, 'not the daemon environment');
      // NODE_V8_COVERAGE is added to every child by Node itself while c8 measures coverage.
      for (const name of env.keys()) assert.ok(['LATCH_APPROVAL_ID', 'LATCH_APPROVAL_SUMMARY', 'PATH', 'HOME', 'PWD', 'SHLVL', '_', 'OLDPWD', 'NODE_V8_COVERAGE'].includes(name), name);
    } finally {
      writeFileSync(configFile, JSON.stringify(config), { mode: 0o600 });
    }
  });

  test('a notifier that cannot run is logged and the request still gets its 202', async () => {
    const configFile = path.join(stack.home, 'config.json');
    const config = JSON.parse(readFileSync(configFile, 'utf8')) as Record<string, unknown>;
    writeFileSync(configFile, JSON.stringify({ ...config, approval_notify: ['/nonexistent/notifier'] }), { mode: 0o600 });
    try {
      await ask();
      await waitUntil(() => stack.logs().includes('approval_notify_failed'), 'the daemon logs approval_notify_failed');
    } finally {
      writeFileSync(configFile, JSON.stringify(config), { mode: 0o600 });
    }
  });
});

describe('durability', () => {
  test('a pending approval, a decision and the passphrase lockout survive a restart', async () => {
    const pending = await ask();
    const decided = await ask();
    await owner.post(`/approvals/${decided.answer.body.approval_id}/deny`, { reason: 'no' });
    setApprovalPassphrase(stack.home, PASSPHRASE);
    const target = pending.answer.body.approval_id as string;
    // The passphrase test above made one wrong guess, but against a passphrase since cleared, which
    // ended its count (docs/decisions.md §17.11): five wrong guesses at this one lock approvals.
    for (let i = 0; i < 5; i++) assertError(await owner.post(`/approvals/${target}/approve`, { passphrase: `wrong guess ${i}` }), 401, 'invalid_passphrase');
    const locked = await owner.post(`/approvals/${target}/approve`, { passphrase: PASSPHRASE });
    assertError(locked, 429, 'too_many_attempts');
    assert.ok(Number(locked.headers.get('retry-after')) > 0);

    await stack.daemon.close({ deadlineMs: 1_000 });
    const restarted = createDaemon({ home: stack.home, portA: 0, portB: 0, env: { LATCH_HOME: stack.home }, logStream: new PassThrough().resume() });
    after(() => restarted.close({ deadlineMs: 1_000 }));
    const ports = await restarted.listen();
    const client = new JsonClient(`http://127.0.0.1:${ports.portA}`, () => readToken(stack.home));
    const agent = new JsonClient(`http://127.0.0.1:${ports.portA}`, () => readAgentToken(stack.home, 'shopper'));
    assert.equal((await client.get(`/approvals/${target}`)).body.status, 'pending_approval');
    assert.equal((await client.get(`/approvals/${decided.answer.body.approval_id}`)).body.status, 'denied');
    const retry = await agent.post('/authorize', askBody(), { 'idempotency-key': pending.key });
    assert.equal(retry.status, 202, retry.text);
    assert.equal(retry.body.approval_id, target);
    assertError(await client.post(`/approvals/${target}/approve`, { passphrase: PASSPHRASE }), 429, 'too_many_attempts');
    clearApprovalPassphrase(stack.home);
  });
});

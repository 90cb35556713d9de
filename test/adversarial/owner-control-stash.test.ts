/**
 * Red team on owner control (issue 21, items 1, 2 and 5), as a hostile agent holding only its own
 * token: a window signed and kept but never registered must pass the brake and the policy again
 * before it reaches the cloud; a client that hangs up leaves no window half-done; the owner sees
 * and cancels such a window, and a cancelled one is never sent; a cloud 404 fails no list and
 * releases the budget; a recurring authorization counts every charge its budget window holds.
 */
import assert from 'node:assert/strict';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { addAgent, readAgentToken } from '../../src/datadir/agents.js';
import { JsonClient, runLatch, startStack, type Stack } from '../support/stack.js';
import { startRecordingProxy, type RecordingProxy } from './recording-proxy.js';

let stack: Stack;
let proxy: RecordingProxy;
let daemon: { a: JsonClient; portA: number };
let agent: JsonClient;
let card: string;

before(async () => {
  stack = await startStack();
  // A cloud that never answers: config.json points there while a window is being stashed.
  proxy = await startRecordingProxy(stack.sandbox.url);
  proxy.mode = 'drop';
  daemon = { a: stack.a, portA: stack.portA };
  addAgent(stack.home, 'shopper');
  agent = new JsonClient(`http://127.0.0.1:${daemon.portA}`, () => readAgentToken(stack.home, 'shopper'));
  card = stack.cards[0].card_id;
});
after(async () => {
  await proxy.close();
  await stack.close();
});

const env = () => ({ LATCH_HOME: stack.home, LATCH_URL: `http://127.0.0.1:${daemon.portA}` });

/** useCloud points config.json's cloud_url at url (the daemon reads it at each request). */
function useCloud(url: string): void {
  const file = path.join(stack.home, 'config.json');
  const config = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  writeFileSync(`${file}.tmp`, `${JSON.stringify({ ...config, cloud_url: url })}\n`, { mode: 0o600 });
  renameSync(`${file}.tmp`, file);
}
const atCloud = (policyId: string) => stack.sandbox.state().authorizations.has(policyId);

function writePolicy(policy: unknown): void {
  const file = path.join(stack.home, 'policy.json');
  writeFileSync(`${file}.tmp`, JSON.stringify(policy), { mode: 0o600 });
  renameSync(`${file}.tmp`, file);
}

/** The policy ids of the windows audited at merchant, oldest first. */
function auditedWindows(merchant: string): string[] {
  const lines = readFileSync(path.join(stack.home, 'audit.log'), 'utf8').trim().split('\n');
  return lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line['merchant'] === merchant && typeof line['policy_id'] === 'string' && line['operation'] === 'authorize').map((line) => line['policy_id'] as string);
}

/** stash has the agent ask with key while the cloud is unreachable: signed, kept, not registered. */
async function stash(merchant: string, key: string): Promise<string> {
  useCloud(proxy.url);
  try {
    const answer = await agent.post('/authorize', { card_id: card, amount: '3.00', merchant_name: merchant }, { 'idempotency-key': key });
    assert.equal(answer.status, 502, answer.text);
  } finally {
    useCloud(stack.sandbox.url);
  }
  const ids = auditedWindows(merchant);
  assert.equal(ids.length >= 1, true, 'the window was signed and audited');
  const policyId = ids[ids.length - 1] as string;
  assert.equal(atCloud(policyId), false, 'never registered');
  return policyId;
}

test('item 1: a stashed window retried after latch pause is refused and never reaches the cloud; after resume the retry is decided afresh', async () => {
  const stashed = await stash('stash-pause.example.com', 'k-pause');
  const paused = await runLatch(['pause', '--reason', 'red team'], env());
  assert.equal(paused.code, 0, paused.stderr);
  try {
    const retry = await agent.post('/authorize', { card_id: card, amount: '3.00', merchant_name: 'stash-pause.example.com' }, { 'idempotency-key': 'k-pause' });
    assert.deepEqual([retry.status, retry.body?.error?.code], [409, 'daemon_paused'], retry.text);
    assert.equal(atCloud(stashed), false, 'the stashed window did not reach the cloud while paused');
  } finally {
    assert.equal((await runLatch(['resume'], env())).code, 0);
  }
});

test('item 1: a stashed window retried after a deny rule is refused and never reaches the cloud', async () => {
  const stashed = await stash('stash-deny.example.com', 'k-deny');
  writePolicy({ v: 1, rules: [{ id: 'no-stash', merchants: ['stash-deny.example.com'], decision: 'deny' }] });
  try {
    const retry = await agent.post('/authorize', { card_id: card, amount: '3.00', merchant_name: 'stash-deny.example.com' }, { 'idempotency-key': 'k-deny' });
    assert.deepEqual([retry.status, retry.body?.error?.code, retry.body?.error?.rule], [403, 'policy_denied', 'no-stash'], retry.text);
    assert.equal(atCloud(stashed), false);
  } finally {
    writePolicy({ v: 1 });
  }
});

test('items 1 and 5: the owner lists and cancels a signed-but-unregistered window; a cancelled one is never sent, and the budget is released', async () => {
  writePolicy({ v: 1, budgets: [{ id: 'stash-budget', merchants: ['stash-cancel.example.com'], per: 'day', limit: '5.00', over: 'deny' }] });
  try {
    const stashed = await stash('stash-cancel.example.com', 'k-cancel');
    const check = await daemon.a.post('/policy/check', { card_id: card, amount: '3.00', merchant_name: 'stash-cancel.example.com' });
    assert.equal(check.body.budgets[0].exposure, '3.00', 'reserved while it may still be sent');

    const one = await daemon.a.get(`/authorizations/${stashed}`);
    assert.equal(one.status, 200, `the owner sees it: ${one.text}`);
    assert.equal(one.body.registered, false);
    const cancel = await daemon.a.post(`/authorizations/${stashed}/cancel`, {});
    assert.equal(cancel.status, 200, cancel.text);
    assert.deepEqual([cancel.body.status, cancel.body.registered], ['revoked', false]);
    const released = await daemon.a.post('/policy/check', { card_id: card, amount: '3.00', merchant_name: 'stash-cancel.example.com' });
    assert.equal(released.body.budgets[0].exposure, '0.00', 'the reservation is released');

    const retry = await agent.post('/authorize', { card_id: card, amount: '3.00', merchant_name: 'stash-cancel.example.com' }, { 'idempotency-key': 'k-cancel' });
    assert.equal(retry.status, 200, retry.text);
    assert.notEqual(retry.body.policy_id, stashed, 'a new window was decided and signed');
    assert.equal(atCloud(stashed), false, 'the cancelled window was never sent');
  } finally {
    writePolicy({ v: 1 });
  }
});

test('item 5: entries the cloud never registered fail no list, and latch revoke --all and agent remove --revoke still work', async () => {
  const first = await stash('stash-list.example.com', 'k-list-1');
  const listed = await daemon.a.get('/authorizations?limit=100');
  assert.equal(listed.status, 200, listed.text);
  const shown = listed.body.authorizations.find((a: { policy_id: string }) => a.policy_id === first);
  assert.deepEqual([shown?.status, shown?.registered], ['revoked', false], 'rolled back: never registered, never sent');
  await stash('stash-list.example.com', 'k-list-2');
  const revokeAll = await runLatch(['revoke', '--all'], env());
  assert.equal(revokeAll.code, 0, revokeAll.stderr);
  await stash('stash-list.example.com', 'k-list-3');
  addAgent(stack.home, 'doomed');
  const removed = await runLatch(['agent', 'remove', 'shopper', '--revoke'], env());
  assert.equal(removed.code, 0, removed.stderr);
  addAgent(stack.home, 'shopper');
});

test('item 1: a client that hangs up right after sending leaves no window half-done: each is registered (or rolled back), none waits in the cache', async () => {
  const merchant = 'hangup.example.com';
  for (let i = 0; i < 12; i++) {
    const controller = new AbortController();
    const sent = fetch(`http://127.0.0.1:${daemon.portA}/authorize`, {
      method: 'POST',
      headers: { authorization: `Bearer ${readAgentToken(stack.home, 'shopper')}`, 'content-type': 'application/json', 'idempotency-key': `k-hangup-${i}` },
      body: JSON.stringify({ card_id: card, amount: '1.00', merchant_name: merchant }),
      signal: controller.signal,
    }).catch(() => undefined);
    setTimeout(() => controller.abort(), i % 4);
    await sent;
  }
  const deadline = Date.now() + 60_000;
  for (;;) {
    const signed = auditedWindows(merchant);
    const pending = signed.filter((id) => !atCloud(id));
    if (pending.length === 0) break;
    assert.ok(Date.now() < deadline, `windows signed but never registered after a hang-up: ${pending.join(', ')}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
});

test('item 2: a recurring authorization counts every charge that fits the budget window', async () => {
  addAgent(stack.home, 'saver');
  const agent = new JsonClient(`http://127.0.0.1:${daemon.portA}`, () => readAgentToken(stack.home, 'saver'));
  writePolicy({ v: 1, budgets: [{ id: 'weekly', agents: ['saver'], per: 'week', limit: '20.00', over: 'deny' }] });
  try {
    const daily = await agent.post('/recurring', { card_id: card, amount: '15.00', merchant_name: 'daily.example.com', interval: 'day' });
    assert.deepEqual([daily.status, daily.body?.error?.code, daily.body?.error?.rule], [403, 'policy_denied', 'weekly'], daily.text);
    const check = await agent.post('/policy/check', { card_id: card, amount: '2.00', merchant_name: 'daily.example.com', kind: 'recurring', interval: 'day' });
    assert.equal(check.body.decision, 'allow', '2.00 a day is 14.00 a week');
    const capped = await agent.post('/recurring', { card_id: card, amount: '15.00', merchant_name: 'daily.example.com', interval: 'day', max_charges: 1 });
    assert.equal(capped.status, 200, `max_charges caps the count: ${capped.text}`);
    const more = await agent.post('/recurring', { card_id: card, amount: '3.00', merchant_name: 'daily.example.com', interval: 'week' });
    assert.equal(more.status, 200, `15.00 + 3.00 fits 20.00: ${more.text}`);
    const over = await agent.post('/recurring', { card_id: card, amount: '1.00', merchant_name: 'daily.example.com', interval: 'day', max_charges: 3 });
    assert.deepEqual([over.status, over.body?.error?.rule], [403, 'weekly'], `18.00 + 3 × 1.00 is over 20.00: ${over.text}`);
  } finally {
    writePolicy({ v: 1 });
  }
});

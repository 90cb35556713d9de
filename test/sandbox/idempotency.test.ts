import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { enrollDevice, send, startSandbox, type RunningSandbox, type SignedClient } from '../support/sandbox-client.js';

let run: RunningSandbox;
let device: SignedClient;

before(async () => {
  run = await startSandbox();
  device = await enrollDevice(run.admin);
  await run.admin.request('POST', '/v1/sandbox/deposits', { account_id: device.accountId, amount: '1000.00' });
});
after(() => run.stop());

async function available(): Promise<string> {
  return (await device.request('GET', '/v1/wallet')).body.available;
}

test('idempotency: the same key and body replay the first answer with no second effect', async () => {
  const { card_id } = await run.admin.card(device.accountId, '0.00');
  const start = await available();
  const body = { card_id, amount: '10.00' };
  const first = await device.request('POST', '/v1/wallet/allocate', body, { idempotencyKey: 'alloc-1' });
  const second = await device.request('POST', '/v1/wallet/allocate', body, { idempotencyKey: 'alloc-1' });
  assert.equal(first.status, 200);
  assert.deepEqual([second.status, second.body], [first.status, first.body]);
  assert.equal(second.headers['idempotent-replayed'], 'true');
  assert.equal(Number(await available()), Number(start) - 10);

  const other = await device.request('POST', '/v1/wallet/allocate', { card_id, amount: '11.00' }, { idempotencyKey: 'alloc-1' });
  assert.deepEqual([other.status, other.body.error.code], [422, 'idempotency_key_reused']);
  const otherPath = await device.request('POST', '/v1/authorizations', { jws: 'x.y.z' }, { idempotencyKey: 'alloc-1' });
  assert.equal(otherPath.body.error.code, 'idempotency_key_reused');

  // Keys are scoped per device: another device's identical key is its own.
  const sibling = await enrollDevice(run.admin, device.accountId);
  assert.equal((await sibling.request('POST', '/v1/wallet/allocate', body, { idempotencyKey: 'alloc-1' })).headers['idempotent-replayed'], undefined);
  assert.equal(Number(await available()), Number(start) - 20);
});

test('idempotency: an error answer is replayed too, and records survive a restart', async () => {
  const { card_id } = await run.admin.card(device.accountId, '0.00');
  const body = { card_id, amount: '5000.00' };
  const refused = await device.request('POST', '/v1/wallet/allocate', body, { idempotencyKey: 'big-one' });
  assert.equal(refused.body.error.code, 'insufficient_funds');
  await run.admin.request('POST', '/v1/sandbox/deposits', { account_id: device.accountId, amount: '5000.00' });
  const retried = await device.request('POST', '/v1/wallet/allocate', body, { idempotencyKey: 'big-one' });
  assert.deepEqual(retried.body, refused.body, 'the stored answer, not a second attempt');
  const ok = await device.request('POST', '/v1/wallet/allocate', { card_id, amount: '1.00' }, { idempotencyKey: 'small-one' });
  run = await run.restart();
  const afterRestart = await device.request('POST', '/v1/wallet/allocate', { card_id, amount: '1.00' }, { idempotencyKey: 'small-one' });
  assert.deepEqual([afterRestart.status, afterRestart.body, afterRestart.headers['idempotent-replayed']], [ok.status, ok.body, 'true']);
});

test('idempotency: records expire after 24 hours on the ledger clock', async () => {
  const { card_id } = await run.admin.card(device.accountId, '0.00');
  const body = { card_id, amount: '1.00' };
  await device.request('POST', '/v1/wallet/allocate', body, { idempotencyKey: 'daily' });
  await run.admin.advance(86_400);
  const again = await device.request('POST', '/v1/wallet/allocate', body, { idempotencyKey: 'daily' });
  assert.equal(again.headers['idempotent-replayed'], undefined);
  assert.equal((await device.request('GET', `/v1/cards/${card_id}`)).body.balance, '2.00');
});

test('idempotency: 50 concurrent requests with one key have exactly one effect', async () => {
  const { card_id } = await run.admin.card(device.accountId, '0.00');
  const now = await run.admin.ledgerNow();
  const jws = device.signJws(device.windowPayload({ card_id, amount: '0.00', kind: 'merchant_verification', nowSeconds: now }));
  await device.request('POST', '/v1/wallet/allocate', { card_id, amount: '10.00' });
  const requests = Array.from({ length: 50 }, () => device.prepare('POST', '/v1/authorizations', { jws }, { idempotencyKey: 'one-window' }));
  const answers = await Promise.all(requests.map((request) => send(device.baseUrl, request)));
  const created = answers.filter((a) => a.status === 201);
  assert.ok(created.length >= 1);
  assert.ok(new Set(created.map((a) => a.body.policy_id)).size === 1);
  for (const answer of answers) assert.ok(answer.status === 201 || answer.body.error.code === 'idempotency_key_in_use', answer.text);
  const listed = (await device.request('GET', `/v1/authorizations?card_id=${card_id}`)).body.authorizations;
  assert.equal(listed.length, 1);

  const allocations = Array.from({ length: 50 }, () => device.prepare('POST', '/v1/wallet/allocate', { card_id, amount: '3.00' }, { idempotencyKey: 'one-allocation' }));
  const allocated = await Promise.all(allocations.map((request) => send(device.baseUrl, request)));
  assert.ok(allocated.every((a) => a.status === 200 || a.body.error.code === 'idempotency_key_in_use'));
  assert.equal((await device.request('GET', `/v1/cards/${card_id}`)).body.balance, '13.00');
});

test('idempotency: admin requests have their own key space', async () => {
  const state = async () => (await run.admin.state())['accounts'] as Array<{ account_id: string; usdt: string }>;
  const usdt = async () => (await state()).find((a) => a.account_id === device.accountId)?.usdt;
  const start = Number(await usdt());
  const deposit = { account_id: device.accountId, amount: '7.00' };
  const first = await run.admin.request('POST', '/v1/sandbox/deposits', deposit, { idempotencyKey: 'alloc-1' });
  const second = await run.admin.request('POST', '/v1/sandbox/deposits', deposit, { idempotencyKey: 'alloc-1' });
  assert.deepEqual(second.body, first.body);
  assert.equal(Number(await usdt()), start + 7);
});

test('idempotency: a malformed key is refused', async () => {
  for (const key of ['', 'x'.repeat(256), 'tab\there']) {
    const answer = await send(run.sandbox.url, {
      method: 'POST',
      target: '/v1/sandbox/deposits',
      headers: { authorization: `Bearer ${run.sandbox.adminKey}`, 'content-type': 'application/json', 'idempotency-key': key },
      body: JSON.stringify({ account_id: device.accountId, amount: '1.00' }),
    });
    assert.deepEqual([answer.status, answer.body.error.param], [400, 'Idempotency-Key'], JSON.stringify(key));
  }
});

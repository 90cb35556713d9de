import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { enrollDevice, startSandbox, type RunningSandbox, type SignedClient } from '../support/sandbox-client.js';

let run: RunningSandbox;
let device: SignedClient;
let other: SignedClient;

before(async () => {
  run = await startSandbox();
  device = await enrollDevice(run.admin);
  other = await enrollDevice(run.admin);
});
after(() => run.stop());

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

test('cards: list and detail in the cloud shape; another account\'s card is not found', async () => {
  const { card_id } = await run.admin.card(device.accountId, '25.00', '300.00');
  const theirs = await run.admin.card(other.accountId);
  const list = await device.request('GET', '/v1/cards');
  assert.equal(list.status, 200);
  assert.equal(list.body.has_more, false);
  const card = list.body.cards.find((c: { card_id: string }) => c.card_id === card_id);
  assert.deepEqual(Object.keys(card).sort(), ['available', 'balance', 'card_id', 'currency', 'daily_limit', 'daily_spent', 'held', 'label', 'last4', 'status']);
  assert.deepEqual([card.status, card.balance, card.currency, card.daily_limit, card.daily_spent], ['frozen', '25.00', 'USD', '300.00', '0.00']);
  assert.match(card.last4, /^[0-9]{4}$/);
  assert.ok(!list.body.cards.some((c: { card_id: string }) => c.card_id === theirs.card_id));
  assert.deepEqual((await device.request('GET', `/v1/cards/${card_id}`)).body, card);
  const foreign = await device.request('GET', `/v1/cards/${theirs.card_id}`);
  assert.deepEqual([foreign.status, foreign.body.error.code], [404, 'card_not_found']);
});

test('authorization lifecycle: create, read, charge, transaction detail, card refrozen', async () => {
  const { card_id } = await run.admin.card(device.accountId, '40.00');
  const created = await device.authorize({ card_id, amount: '12.50', merchant: 'books.example.org' });
  assert.equal(created.status, 201, created.text);
  const a = created.body;
  assert.deepEqual(Object.keys(a).sort(), [
    'amount', 'authorization_id', 'authorization_type', 'card_id', 'created_at', 'currency', 'expires_at', 'kind', 'merchant_name', 'not_before', 'policy_id', 'status', 'transaction_id',
  ]);
  assert.equal(a.authorization_id, a.policy_id);
  assert.deepEqual([a.amount, a.status, a.kind, a.merchant_name, a.card_id], ['12.50', 'active', 'one_time', 'books.example.org', card_id]);
  assert.match(a.expires_at, ISO);
  assert.equal((await device.request('GET', `/v1/cards/${card_id}`)).body.status, 'active');
  assert.deepEqual((await device.request('GET', `/v1/authorizations/${a.policy_id}`)).body, a);
  const authorized = await device.request('GET', `/v1/transactions/${a.transaction_id}`);
  assert.equal(authorized.body.status, 'authorized');

  const charged = await run.admin.charge(card_id, 'BOOKS.example.org.', '12.50');
  assert.equal(charged.status, 200);
  assert.equal(charged.body.decision, 'approved');
  assert.equal(charged.body.decline_code, undefined);
  assert.equal(charged.body.transaction.id, a.transaction_id);

  const detail = (await device.request('GET', `/v1/transactions/${a.transaction_id}`)).body;
  assert.equal(detail.status, 'settled');
  assert.deepEqual(Object.keys(detail.policy_window).sort(), ['amount', 'authorization_type', 'card_id', 'currency', 'jws', 'key_id', 'merchant', 'not_after', 'not_before', 'policy_id']);
  assert.equal(detail.policy_window.key_id, device.key.keyId);
  assert.equal(detail.policy_window.jws.split('.').length, 3);
  assert.equal((await device.request('GET', `/v1/authorizations/${a.policy_id}`)).body.status, 'used');
  const card = (await device.request('GET', `/v1/cards/${card_id}`)).body;
  assert.deepEqual([card.status, card.balance, card.daily_spent], ['frozen', '27.50', '12.50']);

  const declined = await run.admin.charge(card_id, 'books.example.org', '12.50');
  assert.deepEqual([declined.body.decision, declined.body.decline_code, declined.body.transaction.status], ['declined', 'card_frozen', 'declined']);
  const declinedDetail = (await device.request('GET', `/v1/transactions/${declined.body.transaction.id}`)).body;
  assert.deepEqual([declinedDetail.policy_window, declinedDetail.decline_code], [null, 'card_frozen']);
  const foreign = await other.request('GET', `/v1/transactions/${a.transaction_id}`);
  assert.deepEqual([foreign.status, foreign.body.error.code], [404, 'transaction_not_found']);
});

test('revocation: releases the hold, revokes the transaction, refreezes the card; only once', async () => {
  const { card_id } = await run.admin.card(device.accountId, '10.00');
  const a = (await device.authorize({ card_id, amount: '10.00' })).body;
  assert.equal((await device.authorize({ card_id, amount: '0.01' })).body.error.code, 'insufficient_funds');
  const mismatch = await device.request('POST', `/v1/authorizations/${a.policy_id}/revoke`, { jws: device.signJws({ v: 1, typ: 'revocation', policy_id: 'pw_somethingelse1234', device_id: device.deviceId, nonce: 'abcdefghijkl', iat: Math.floor(Date.now() / 1000) }) });
  assert.deepEqual([mismatch.status, mismatch.body.error.param], [400, 'policy_id']);
  const stale = await device.revoke(a.policy_id, { iat: Math.floor(Date.now() / 1000) - 301 });
  assert.deepEqual([stale.status, stale.body.error.code], [401, 'signature_expired']);
  const revoked = await device.revoke(a.policy_id, { reason: 'user changed their mind' });
  assert.equal(revoked.status, 200, revoked.text);
  assert.equal(revoked.body.status, 'revoked');
  assert.equal((await device.request('GET', `/v1/transactions/${a.transaction_id}`)).body.status, 'revoked');
  assert.equal((await device.request('GET', `/v1/cards/${card_id}`)).body.status, 'frozen');
  assert.equal((await device.authorize({ card_id, amount: '10.00' })).status, 201, 'the hold was released');
  const again = await device.revoke(a.policy_id);
  assert.deepEqual([again.status, again.body.error.code], [409, 'authorization_not_active']);
  // Another account's device signs a valid revocation, but the authorization is not theirs.
  const foreign = await other.revoke(a.policy_id);
  assert.deepEqual([foreign.status, foreign.body.error.code], [404, 'authorization_not_found']);
});

test('expiry: a window past not_after reads as expired at once, and a late charge is authorization_expired', async () => {
  const { card_id } = await run.admin.card(device.accountId, '10.00');
  const now = await run.admin.ledgerNow();
  const a = (await device.authorize({ card_id, amount: '5.00', merchant: 'late.example.com', nowSeconds: now, not_after: now + 120 })).body;
  await run.admin.advance(121);
  assert.equal((await device.request('GET', `/v1/authorizations/${a.policy_id}`)).body.status, 'expired');
  assert.equal((await device.request('GET', `/v1/transactions/${a.transaction_id}`)).body.status, 'expired');
  const card = (await device.request('GET', `/v1/cards/${card_id}`)).body;
  assert.equal(card.status, 'frozen');
  assert.equal((await run.admin.charge(card_id, 'late.example.com', '5.00')).body.decline_code, 'authorization_expired');
});

test('account-wide windows: no card, no hold; pay a matching charge on any card of the account', async () => {
  const first = await run.admin.card(device.accountId, '30.00');
  const now = await run.admin.ledgerNow();
  const payload = device.windowPayload({ typ: 'policy_window', merchant: 'fuel.example.com', amount: '20.00', authorization_type: 'ceiling', nowSeconds: now });
  delete payload['card_id'];
  const created = await device.request('POST', '/v1/policy-windows', { jws: device.signJws(payload) });
  assert.equal(created.status, 201, created.text);
  assert.deepEqual([created.body.card_id, created.body.transaction_id], [null, null]);
  const wrongEndpoint = await device.request('POST', '/v1/authorizations', { jws: device.signJws(device.windowPayload({ typ: 'policy_window', nowSeconds: now })) });
  assert.equal(wrongEndpoint.body.error.param, 'typ');
  assert.equal((await device.request('GET', `/v1/cards/${first.card_id}`)).body.status, 'active');
  const charged = await run.admin.charge(first.card_id, 'fuel.example.com', '19.99');
  assert.equal(charged.body.decision, 'approved');
  assert.equal((await device.request('GET', `/v1/authorizations/${created.body.policy_id}`)).body.transaction_id, charged.body.transaction.id);
});

test('recurring windows show their current period and charge once per period', async () => {
  const { card_id } = await run.admin.card(device.accountId, '100.00');
  const now = await run.admin.ledgerNow();
  const created = await device.authorize({ card_id, kind: 'recurring', interval: 'week', interval_count: 2, max_charges: 2, amount: '15.00', authorization_type: 'ceiling', merchant: 'stream.example.com', not_before: now - 100, not_after: now + 60 * 86_400, nowSeconds: now });
  assert.equal(created.status, 201, created.text);
  const r = created.body;
  assert.deepEqual([r.kind, r.interval, r.interval_count, r.max_charges, r.charges_count], ['recurring', 'week', 2, 2, 0]);
  assert.equal(Date.parse(r.current_period_end) - Date.parse(r.current_period_start), 14 * 86_400_000);
  assert.equal((await run.admin.charge(card_id, 'stream.example.com', '15.00')).body.decision, 'approved');
  assert.equal((await run.admin.charge(card_id, 'stream.example.com', '15.00')).body.decline_code, 'scope_mismatch');
  await run.admin.advance(14 * 86_400);
  const second = await run.admin.charge(card_id, 'stream.example.com', '9.00');
  assert.equal(second.body.decision, 'approved');
  const after = (await device.request('GET', `/v1/authorizations/${r.policy_id}`)).body;
  assert.deepEqual([after.status, after.charges_count], ['used', 2]);
  const settled = (await device.request('GET', `/v1/transactions?card_id=${card_id}&status=settled`)).body.transactions;
  assert.deepEqual(settled.map((t: { amount: string }) => t.amount), ['9.00', '15.00']);
});

test('wallet: read and allocate; short funds are insufficient_funds', async () => {
  const { card_id } = await run.admin.card(other.accountId, '0.00');
  assert.equal((await run.admin.request('POST', '/v1/sandbox/deposits', { account_id: other.accountId, amount: '50.00' })).status, 200);
  const before = (await other.request('GET', '/v1/wallet')).body;
  const allocated = await other.request('POST', '/v1/wallet/allocate', { card_id, amount: 20.5 });
  assert.equal(allocated.status, 200, allocated.text);
  assert.deepEqual(allocated.body, { card_id, allocated: '20.50', new_balance: '20.50' });
  const after = (await other.request('GET', '/v1/wallet')).body;
  assert.equal(after.usdt, before.usdt);
  assert.equal(Number(after.available), Number(before.available) - 20.5);
  const short = await other.request('POST', '/v1/wallet/allocate', { card_id, amount: '1000000.00' });
  assert.deepEqual([short.status, short.body.error.code], [402, 'insufficient_funds']);
  const foreignCard = (await run.admin.card(device.accountId)).card_id;
  assert.equal((await other.request('POST', '/v1/wallet/allocate', { card_id: foreignCard, amount: '1.00' })).body.error.code, 'card_not_found');
  for (const amount of ['-1', '0', '1.001', '1e2', 'NaN', null]) {
    const bad = await other.request('POST', '/v1/wallet/allocate', { card_id, amount });
    assert.deepEqual([bad.status, bad.body.error.code, bad.body.error.param], [400, 'invalid_request', 'amount'], String(amount));
  }
});

test('lists: newest first, limit, starting_after and has_more, filters', async () => {
  const { card_id } = await run.admin.card(device.accountId, '100.00');
  const ids: string[] = [];
  const now = await run.admin.ledgerNow();
  for (let i = 0; i < 5; i++) ids.push((await device.authorize({ card_id, amount: `1.0${i}`, nowSeconds: now })).body.policy_id);
  const page1 = (await device.request('GET', `/v1/authorizations?card_id=${card_id}&limit=2`)).body;
  assert.deepEqual(page1.authorizations.map((a: { policy_id: string }) => a.policy_id), [ids[4], ids[3]]);
  assert.equal(page1.has_more, true);
  const page3 = (await device.request('GET', `/v1/authorizations?card_id=${card_id}&limit=2&starting_after=${ids[1]}`)).body;
  assert.deepEqual([page3.authorizations.map((a: { policy_id: string }) => a.policy_id), page3.has_more], [[ids[0]], false]);
  const byStatus = (await device.request('GET', `/v1/authorizations?card_id=${card_id}&status=used`)).body;
  assert.deepEqual(byStatus.authorizations, []);
  const txs = (await device.request('GET', `/v1/transactions?card_id=${card_id}&limit=100`)).body;
  assert.equal(txs.transactions.length, 5);
  for (const [query, param] of [['limit=0', 'limit'], ['limit=101', 'limit'], ['status=pending', 'status'], ['starting_after=pw_unknown1234', 'starting_after'], ['colour=red', 'colour'], ['limit=1&limit=2', 'limit']]) {
    const bad = await device.request('GET', `/v1/authorizations?${query}`);
    assert.deepEqual([bad.status, bad.body.error.code, bad.body.error.param], [400, 'invalid_request', param], query);
  }
});

/**
 * Idempotency-Key on Variant A's money-moving POSTs, end to end (decisions §9): the key reaches
 * the cloud, a retry with the same key and body has no second effect and gets the first answer,
 * another body under the same key is 422, and a malformed key is 400.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertError } from '../support/e2e-assert.js';
import { startStack, type Stack } from '../support/stack.js';

let stack: Stack;
let groceries: string;
let subscriptions: string;
before(async () => {
  stack = await startStack();
  groceries = stack.cards[0].card_id;
  subscriptions = stack.cards[1].card_id;
});
after(() => stack.close());

const held = (cardId: string) => stack.sandbox.state().cards.get(cardId)?.held;
const authorizationCount = () => stack.sandbox.state().authorizations.size;

describe('POST /authorize', () => {
  test('the same key and body twice: the same authorization, one hold, one window', async () => {
    const body = { card_id: groceries, amount: '11.00', merchant_name: 'shop.example.com' };
    const count = authorizationCount();
    const first = await stack.a.post('/authorize', body, { 'idempotency-key': 'order-1001' });
    assert.equal(first.status, 200, first.text);
    const second = await stack.a.post('/authorize', body, { 'idempotency-key': 'order-1001' });
    assert.equal(second.status, 200, second.text);
    assert.deepEqual(second.body, first.body);
    assert.equal(authorizationCount(), count + 1);
    assert.equal(held(groceries), 1100);
    const transactions = await stack.a.get(`/transactions?card_id=${groceries}&status=authorized`);
    assert.equal(transactions.body.transactions.length, 1);
    // The key is the caller's, scoped to this device in the cloud.
    const keyId = (await stack.a.get('/health')).body.signing_key.key_id;
    assert.ok(stack.sandbox.state().idempotency.has(`${keyId}\u0000order-1001`));
  });

  test('the same key sent twice at once: one authorization; the other gets it too or 409 in use', async () => {
    const body = { card_id: subscriptions, amount: '2.00', merchant_name: 'race.example.com' };
    const count = authorizationCount();
    const answers = await Promise.all([1, 2, 3].map(() => stack.a.post('/authorize', body, { 'idempotency-key': 'race-1' })));
    const ok = answers.filter((a) => a.status === 200);
    assert.ok(ok.length >= 1, answers.map((a) => a.text).join());
    for (const answer of ok) assert.equal(answer.body.policy_id, ok[0]?.body.policy_id);
    for (const answer of answers.filter((a) => a.status !== 200)) assertError(answer, 409, 'idempotency_key_in_use');
    assert.equal(authorizationCount(), count + 1);
  });

  test('the same key with another body: 422 idempotency_key_reused, nothing created', async () => {
    const count = authorizationCount();
    const other = { card_id: groceries, amount: '12.00', merchant_name: 'shop.example.com' };
    assertError(await stack.a.post('/authorize', other, { 'idempotency-key': 'order-1001' }), 422, 'idempotency_key_reused');
    assert.equal(authorizationCount(), count);
    assert.equal(held(groceries), 1100);
  });

  test('without a key, two identical requests are two authorizations', async () => {
    const body = { card_id: subscriptions, amount: '1.00', merchant_name: 'twice.example.com' };
    const heldBefore = held(subscriptions) ?? 0;
    const first = await stack.a.post('/authorize', body);
    const second = await stack.a.post('/authorize', body);
    assert.equal(first.status, 200, first.text);
    assert.equal(second.status, 200, second.text);
    assert.notEqual(first.body.policy_id, second.body.policy_id);
    assert.equal(held(subscriptions), heldBefore + 200);
  });

  test('a failed first attempt is replayed too: the retry cannot turn a refusal into a charge', async () => {
    const tooMuch = { card_id: subscriptions, amount: '500.00', merchant_name: 'shop.example.com' };
    assertError(await stack.a.post('/authorize', tooMuch, { 'idempotency-key': 'big-1' }), 402, 'insufficient_funds');
    assert.equal((await stack.a.post('/wallet/allocate', { card_id: subscriptions, amount: '240.00' })).status, 200);
    assertError(await stack.a.post('/authorize', tooMuch, { 'idempotency-key': 'big-1' }), 402, 'insufficient_funds');
  });

  test('malformed keys are refused before anything is signed or sent', async () => {
    const count = authorizationCount();
    for (const key of ['k'.repeat(256), 'é-not-ascii']) {
      const answer = await stack.a.request('POST', '/authorize', { card_id: groceries, amount: 1, merchant_name: 'shop.example.com' }, { 'idempotency-key': key }).catch(() => undefined);
      // fetch itself refuses a non-ASCII header value; only what was sent is checked.
      if (answer !== undefined) assertError(answer, 400, 'invalid_request', 'Idempotency-Key');
    }
    assert.equal(authorizationCount(), count);
  });
});

describe('other money-moving POSTs', () => {
  test('/merchant-bind and /recurring replay with the same key', async () => {
    for (const [target, body] of [
      ['/merchant-bind', { card_id: groceries, merchant_name: 'verify.example.com' }],
      ['/recurring', { card_id: groceries, merchant_name: 'stream.example.com', amount: '5.00', interval: 'month' }],
    ] as const) {
      const count = authorizationCount();
      const first = await stack.a.post(target, body, { 'idempotency-key': `key-${target}` });
      const second = await stack.a.post(target, body, { 'idempotency-key': `key-${target}` });
      assert.equal(first.status, 200, first.text);
      assert.deepEqual(second.body, first.body, target);
      assert.equal(authorizationCount(), count + 1, target);
    }
  });

  test('/wallet/allocate with the same key moves the money once', async () => {
    const before = (await stack.a.get('/wallet/balance')).body;
    const first = await stack.a.post('/wallet/allocate', { card_id: groceries, amount: '3.00' }, { 'idempotency-key': 'alloc-1' });
    const second = await stack.a.post('/wallet/allocate', { card_id: groceries, amount: '3.00' }, { 'idempotency-key': 'alloc-1' });
    assert.equal(first.status, 200, first.text);
    assert.deepEqual(second.body, first.body);
    const afterwards = (await stack.a.get('/wallet/balance')).body;
    assert.equal(Number(afterwards.available.replace('.', '')), Number(before.available.replace('.', '')) - 300);
    assertError(await stack.a.post('/wallet/allocate', { card_id: groceries, amount: '4.00' }, { 'idempotency-key': 'alloc-1' }), 422, 'idempotency_key_reused');
  });
});

/**
 * Variant B's reads and wallet endpoints end to end: GET /cards, /cards/:card_id, /transactions,
 * /transactions/:tx_id, /wallet/balance and POST /wallet/allocate, with their errors. Another
 * account's cards and transactions are never visible.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startStack, type Stack } from '../support/stack.js';
import { authorizeB, expectError, newCard, otherAccountCard } from './variant-b-fixture.js';

describe('Variant B: reads and the wallet', () => {
  let stack: Stack;
  let foreignCard: string;
  let foreignTx: string;

  before(async () => {
    stack = await startStack();
    foreignCard = await otherAccountCard(stack);
    // A charge on the other account's card is recorded there (declined: no window).
    const charged = await stack.charge(foreignCard, 'shop.example.com', '1.00');
    assert.equal(charged.status, 200, charged.text);
    foreignTx = charged.body.transaction.id;
  });
  after(() => stack.close());

  describe('cards', () => {
    test("GET /cards lists this account's cards and never another account's", async () => {
      const answer = await stack.b.get('/cards');
      assert.equal(answer.status, 200);
      const ids = answer.body.cards.map((card: { id: string }) => card.id);
      for (const card of stack.cards) assert.ok(ids.includes(card.card_id));
      assert.ok(!ids.includes(foreignCard));
    });

    test('GET /cards/:card_id of a card of another account → 404 card_not_found, same as an unknown card', async () => {
      const foreign = await stack.b.get(`/cards/${foreignCard}`);
      expectError(foreign, 404, 'card_not_found');
      const unknown = await stack.b.get('/cards/card_doesnotexist');
      expectError(unknown, 404, 'card_not_found');
      assert.equal(foreign.body.error.message, unknown.body.error.message);
    });

    for (const id of ['abc', 'CARD_ABC', 'card_', 'card_ABC', 'tx_abc', `card_${'a'.repeat(65)}`, 'card_a%2Fb', 'card_a%00']) {
      test(`GET /cards/${id} → 400 invalid_request param card_id`, async () => {
        expectError(await stack.b.get(`/cards/${id}`), 400, 'invalid_request', 'card_id');
      });
    }

    test('GET /cards and /cards/:card_id take no query parameters', async () => {
      expectError(await stack.b.get('/cards?limit=1'), 400, 'invalid_request', 'limit');
      expectError(await stack.b.get(`/cards/${stack.cards[0].card_id}?expand=pan`), 400, 'invalid_request', 'expand');
    });
  });

  describe('transactions', () => {
    test('GET /transactions is newest first and filters by card_id, status and limit (accepted on B as on A)', async () => {
      const cardId = await newCard(stack, 'Listed', '50.00');
      const older = await authorizeB(stack, { card_id: cardId, amount: 1, merchant: 'older.example.com' });
      const newer = await authorizeB(stack, { card_id: cardId, amount: 2, merchant: 'newer.example.com' });
      const all = await stack.b.get(`/transactions?card_id=${cardId}`);
      assert.equal(all.status, 200, all.text);
      assert.deepEqual(all.body.transactions.map((t: { id: string }) => t.id), [newer, older]);
      const one = await stack.b.get(`/transactions?card_id=${cardId}&limit=1`);
      assert.deepEqual(one.body.transactions.map((t: { id: string }) => t.id), [newer]);
      const next = await stack.b.get(`/transactions?card_id=${cardId}&starting_after=${newer}`);
      assert.deepEqual(next.body.transactions.map((t: { id: string }) => t.id), [older]);
      const settled = await stack.b.get(`/transactions?card_id=${cardId}&status=settled`);
      assert.deepEqual(settled.body.transactions, []);
    });

    test("GET /transactions never lists another account's transactions", async () => {
      const answer = await stack.b.get('/transactions?limit=100');
      assert.equal(answer.status, 200);
      assert.ok(!answer.body.transactions.some((t: { id: string }) => t.id === foreignTx));
    });

    const badQueries: Array<[string, string]> = [
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['limit=1.5', 'limit'],
      ['limit=-1', 'limit'],
      ['status=pending', 'status'],
      ['card_id=nope', 'card_id'],
      ['starting_after=pw_abc', 'starting_after'],
      ['limit=1&limit=2', 'limit'],
      ['page=2', 'page'],
    ];
    for (const [query, param] of badQueries) {
      test(`GET /transactions?${query} → 400 invalid_request param ${param}`, async () => {
        expectError(await stack.b.get(`/transactions?${query}`), 400, 'invalid_request', param);
      });
    }

    test("GET /transactions/:tx_id of another account's transaction → 404 transaction_not_found", async () => {
      expectError(await stack.b.get(`/transactions/${foreignTx}`), 404, 'transaction_not_found');
      expectError(await stack.b.get('/transactions/tx_doesnotexist'), 404, 'transaction_not_found');
    });

    for (const id of ['abc', 'TX_ABC', 'tx_', 'pw_abc', 'tx_a%2F..']) {
      test(`GET /transactions/${id} → 400 invalid_request param tx_id`, async () => {
        expectError(await stack.b.get(`/transactions/${id}`), 400, 'invalid_request', 'tx_id');
      });
    }
  });

  describe('wallet', () => {
    test('GET /wallet/balance: available is usdt minus allocated; no query parameters', async () => {
      const answer = await stack.b.get('/wallet/balance');
      assert.equal(answer.status, 200);
      // Checked in cents, so the assertion never depends on binary float arithmetic.
      const cents = (value: number) => Math.round(value * 100);
      assert.equal(cents(answer.body.available), cents(answer.body.usdt) - cents(answer.body.allocated));
      expectError(await stack.b.get('/wallet/balance?currency=USDT'), 400, 'invalid_request', 'currency');
    });

    test('POST /wallet/allocate moves funds: card balance up, wallet available down, by exactly the amount', async () => {
      const cardId = await newCard(stack, 'Allocated', '10.00');
      const before = (await stack.b.get('/wallet/balance')).body;
      const byNumber = await stack.b.post('/wallet/allocate', { card_id: cardId, amount: 2.25 });
      assert.equal(byNumber.status, 200, byNumber.text);
      assert.deepEqual(byNumber.body, { card_id: cardId, allocated: 2.25, new_balance: 12.25 });
      const byString = await stack.b.post('/wallet/allocate', { card_id: cardId, amount: '0.75' });
      assert.deepEqual(byString.body, { card_id: cardId, allocated: 0.75, new_balance: 13 });
      assert.equal((await stack.b.get(`/cards/${cardId}`)).body.balance, 13);
      const afterwards = (await stack.b.get('/wallet/balance')).body;
      assert.equal(Math.round(afterwards.available * 100), Math.round(before.available * 100) - 300);
      assert.equal(Math.round(afterwards.allocated * 100), Math.round(before.allocated * 100) + 300);
      assert.equal(afterwards.usdt, before.usdt);
    });

    test("allocating more than the wallet's available funds → 402 insufficient_funds, and nothing moves", async () => {
      const cardId = stack.cards[1].card_id;
      const before = (await stack.b.get('/wallet/balance')).body;
      // One cent more than available, written as exact decimal text from integer cents.
      const cents = Math.round(before.available * 100) + 1;
      const tooMuch = `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
      expectError(await stack.b.post('/wallet/allocate', { card_id: cardId, amount: tooMuch }), 402, 'insufficient_funds');
      assert.deepEqual((await stack.b.get('/wallet/balance')).body, before);
    });

    test("allocating to another account's card → 404 card_not_found, and nothing moves", async () => {
      const before = (await stack.b.get('/wallet/balance')).body;
      expectError(await stack.b.post('/wallet/allocate', { card_id: foreignCard, amount: 1 }), 404, 'card_not_found');
      assert.deepEqual((await stack.b.get('/wallet/balance')).body, before);
    });

    test('allocating to a closed card → 409 card_closed', async () => {
      const cardId = await newCard(stack, 'Closed', '0');
      assert.equal((await stack.admin.request('PATCH', `/v1/sandbox/cards/${cardId}`, { status: 'closed' })).status, 200);
      expectError(await stack.b.post('/wallet/allocate', { card_id: cardId, amount: 1 }), 409, 'card_closed');
    });

    const badBodies: Array<[string, Record<string, unknown>, string]> = [
      ['missing card_id', { amount: 1 }, 'card_id'],
      ['missing amount', { card_id: 'card_abc' }, 'amount'],
      ['zero amount', { card_id: 'card_abc', amount: 0 }, 'amount'],
      ['negative amount', { card_id: 'card_abc', amount: -1 }, 'amount'],
      ['three decimals', { card_id: 'card_abc', amount: 1.001 }, 'amount'],
      ['exponent text', { card_id: 'card_abc', amount: '1e2' }, 'amount'],
      ['above 1,000,000.00', { card_id: 'card_abc', amount: 1_000_000.01 }, 'amount'],
      ['malformed card_id', { card_id: 'card-abc', amount: 1 }, 'card_id'],
      ['unknown field currency', { card_id: 'card_abc', amount: 1, currency: 'USD' }, 'currency'],
      ["A's field name", { card: 'card_abc', amount: 1 }, 'card'],
    ];
    for (const [name, body, param] of badBodies) {
      test(`POST /wallet/allocate with ${name} → 400 invalid_request param ${param}`, async () => {
        expectError(await stack.b.post('/wallet/allocate', body), 400, 'invalid_request', param);
      });
    }

    test('POST /wallet/allocate replayed with the same Idempotency-Key moves the funds once', async () => {
      const cardId = await newCard(stack, 'Once', '0');
      const headers = { 'idempotency-key': 'b-allocate-once' };
      const first = await stack.b.post('/wallet/allocate', { card_id: cardId, amount: 1 }, headers);
      const second = await stack.b.post('/wallet/allocate', { card_id: cardId, amount: 1 }, headers);
      assert.equal(first.status, 200, first.text);
      assert.deepEqual(second.body, first.body);
      assert.equal((await stack.b.get(`/cards/${cardId}`)).body.balance, 1);
      expectError(await stack.b.post('/wallet/allocate', { card_id: cardId, amount: 2 }, headers), 422, 'idempotency_key_reused');
    });
  });
});

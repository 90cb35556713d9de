/**
 * Holds are visible: after an authorization, Variant A's cards show what is held and what is
 * still available, the cloud's card says the same, and a refusal for insufficient funds names the
 * available amount. Variant B's shapes stay exactly the spec's (variant-b-shapes.test.ts).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertError } from '../support/e2e-assert.js';
import { startStack, type Stack } from '../support/stack.js';

let stack: Stack;
let groceries: string;
before(async () => {
  stack = await startStack();
  groceries = stack.cards[0].card_id;
});
after(() => stack.close());

describe('held and available on cards', () => {
  test('a fresh card: everything available, nothing held, balance unchanged', async () => {
    const detail = await stack.a.get(`/cards/${groceries}`);
    assert.equal(detail.status, 200, detail.text);
    assert.deepEqual([detail.body.balance, detail.body.available, detail.body.held], ['100.00', '100.00', '0.00']);
  });

  test('after a 12.50 authorization: GET /cards and GET /cards/:id show 87.50 available, 12.50 held, balance 100.00', async () => {
    const authorized = await stack.a.post('/authorize', { card_id: groceries, amount: '12.50', merchant_name: 'shop.example.com' });
    assert.equal(authorized.status, 200, authorized.text);
    const list = await stack.a.get('/cards');
    const listed = list.body.cards.find((card: { card_id: string }) => card.card_id === groceries);
    const detail = await stack.a.get(`/cards/${groceries}`);
    for (const card of [listed, detail.body]) {
      assert.deepEqual([card.balance, card.available, card.held, card.currency], ['100.00', '87.50', '12.50', 'USD']);
    }
    const cloud = await stack.a.get(`/v1/cards/${groceries}`);
    assert.equal(cloud.status, 200, cloud.text);
    assert.deepEqual([cloud.body.balance, cloud.body.available, cloud.body.held], ['100.00', '87.50', '12.50']);
  });

  test('insufficient_funds names the available amount, the balance, the holds and the request', async () => {
    const refused = await stack.a.post('/authorize', { card_id: groceries, amount: '100.00', merchant_name: 'other.example.com' });
    assertError(refused, 402, 'insufficient_funds');
    assert.equal(refused.body.error.message, `Card ${groceries} has 87.50 USD available (100.00 balance, 12.50 held); 100.00 was requested.`);
  });

  test('Variant B shows no held or available fields', async () => {
    const card = await stack.b.get(`/cards/${groceries}`);
    assert.equal(card.status, 200, card.text);
    assert.deepEqual(Object.keys(card.body).sort(), ['balance', 'daily_limit', 'id', 'label', 'status']);
  });
});

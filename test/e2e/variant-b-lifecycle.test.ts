/**
 * The card's frozen → active → frozen cycle observed through Variant B (decisions §5): B's
 * /authorize "unfreezes the card" by signing a window; the card freezes again when no window is
 * active, whether the window was used by a matching charge or expired on the cloud's clock.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startStack, type Stack } from '../support/stack.js';
import { assertMoney, authorizeB, newCard } from './variant-b-fixture.js';

async function cardStatus(stack: Stack, cardId: string): Promise<string> {
  const answer = await stack.b.get(`/cards/${cardId}`);
  assert.equal(answer.status, 200, answer.text);
  return answer.body.status;
}

async function transactionStatus(stack: Stack, txId: string): Promise<string> {
  const answer = await stack.b.get(`/transactions/${txId}`);
  assert.equal(answer.status, 200, answer.text);
  return answer.body.status;
}

describe('Variant B lifecycle: a matching charge', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.close());

  test('frozen → authorize (active, tx authorized) → matching charge (frozen, tx settled, balance debited)', async () => {
    const cardId = await newCard(stack, 'Cycle', '100.00');
    assert.equal(await cardStatus(stack, cardId), 'frozen');

    const txId = await authorizeB(stack, { card_id: cardId, amount: 12.5, merchant: 'cycle.example.com' });
    assert.equal(await cardStatus(stack, cardId), 'active');
    assert.equal(await transactionStatus(stack, txId), 'authorized');
    const listed = (await stack.b.get('/cards')).body.cards.find((card: { id: string }) => card.id === cardId);
    assert.equal(listed.status, 'active', 'the list shows the same status as the single read');

    const charged = await stack.charge(cardId, 'cycle.example.com', '12.50');
    assert.equal(charged.body.decision, 'approved', charged.text);
    assert.equal(charged.body.transaction.id, txId, 'the charge settles the transaction B returned');

    assert.equal(await cardStatus(stack, cardId), 'frozen');
    const settled = (await stack.b.get(`/transactions/${txId}`)).body;
    assert.equal(settled.status, 'settled');
    assertMoney(settled.amount, 12.5, 'settled amount');
    assertMoney((await stack.b.get(`/cards/${cardId}`)).body.balance, 87.5, 'balance after the charge');
  });

  test('the card stays active while any window is active: two windows, two charges', async () => {
    const cardId = await newCard(stack, 'Two windows', '100.00');
    await authorizeB(stack, { card_id: cardId, amount: 5, merchant: 'first.example.com' });
    await authorizeB(stack, { card_id: cardId, amount: 6, merchant: 'second.example.com' });
    assert.equal(await cardStatus(stack, cardId), 'active');
    assert.equal((await stack.charge(cardId, 'first.example.com', '5.00')).body.decision, 'approved');
    assert.equal(await cardStatus(stack, cardId), 'active');
    assert.equal((await stack.charge(cardId, 'second.example.com', '6.00')).body.decision, 'approved');
    assert.equal(await cardStatus(stack, cardId), 'frozen');
  });

  const mismatches: Array<[string, string, string]> = [
    ['another merchant', 'evil.example.com', '7.00'],
    ['a subdomain of the merchant', 'pay.scope.example.com', '7.00'],
    ['a smaller amount on an exact window', 'scope.example.com', '6.99'],
    ['a larger amount', 'scope.example.com', '7.01'],
  ];
  for (const [name, merchant, amount] of mismatches) {
    test(`a charge with ${name} is declined and the card stays active (the window is untouched)`, async () => {
      const cardId = await newCard(stack, 'Scoped', '100.00');
      const txId = await authorizeB(stack, { card_id: cardId, amount: 7, merchant: 'scope.example.com' });
      const declined = await stack.charge(cardId, merchant, amount);
      assert.equal(declined.body.decision, 'declined', declined.text);
      assert.equal(declined.body.decline_code, 'scope_mismatch');
      assert.equal(await cardStatus(stack, cardId), 'active');
      assert.equal(await transactionStatus(stack, txId), 'authorized');
      // The declined charge is its own transaction on B, status declined.
      assert.equal(await transactionStatus(stack, declined.body.transaction.id), 'declined');
      // The matching charge still goes through.
      assert.equal((await stack.charge(cardId, 'scope.example.com', '7.00')).body.decision, 'approved');
      assert.equal(await cardStatus(stack, cardId), 'frozen');
    });
  }

  test('a one-time window is used once: the same charge again is declined and the card stays frozen', async () => {
    const cardId = await newCard(stack, 'Once', '100.00');
    await authorizeB(stack, { card_id: cardId, amount: 3, merchant: 'once.example.com' });
    assert.equal((await stack.charge(cardId, 'once.example.com', '3.00')).body.decision, 'approved');
    const again = await stack.charge(cardId, 'once.example.com', '3.00');
    assert.equal(again.body.decision, 'declined');
    assert.equal(again.body.decline_code, 'card_frozen');
    assert.equal(await cardStatus(stack, cardId), 'frozen');
  });
});

describe('Variant B lifecycle: expiry on the cloud clock', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.close());

  test('frozen → authorize with ttl 1m (active) → the clock passes not_after (frozen, tx expired) → a late charge is authorization_expired', async () => {
    const cardId = await newCard(stack, 'Expiring', '100.00');
    const txId = await authorizeB(stack, { card_id: cardId, amount: 9.99, merchant: 'late.example.com', ttl: '1m' });
    const other = await authorizeB(stack, { card_id: stack.cards[0].card_id, amount: 1, merchant: 'long.example.com', ttl: '2h' });
    assert.equal(await cardStatus(stack, cardId), 'active');

    // The window includes not_after itself, so move past it by more than its whole lifetime.
    const moved = await stack.admin.post('/v1/sandbox/clock', { advance_seconds: 61 + 5 });
    assert.equal(moved.status, 200, moved.text);

    assert.equal(await cardStatus(stack, cardId), 'frozen');
    assert.equal(await transactionStatus(stack, txId), 'expired');
    // A window with time left is not touched by another one's expiry.
    assert.equal(await cardStatus(stack, stack.cards[0].card_id), 'active');
    assert.equal(await transactionStatus(stack, other), 'authorized');

    const late = await stack.charge(cardId, 'late.example.com', '9.99');
    assert.equal(late.body.decision, 'declined', late.text);
    assert.equal(late.body.decline_code, 'authorization_expired');
    assertMoney((await stack.b.get(`/cards/${cardId}`)).body.balance, 100, 'an expired hold is released, nothing debited');
  });
});

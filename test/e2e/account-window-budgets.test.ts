/**
 * An account-wide window (`/sign-policy-window`, no card) can be charged on any card of the
 * account, so it counts against every card-scoped budget whose other conditions hold
 * (docs/decisions.md §27.6; issue 34 item 7): on the real daemon and sandbox.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { assertError } from '../support/e2e-assert.js';
import { startStack, type Stack } from '../support/stack.js';

let stack: Stack;
before(async () => {
  stack = await startStack();
  const policy = { v: 1, default: 'allow', budgets: [{ id: 'groceries-daily', cards: [stack.cards[0].card_id], per: 'day', limit: '10.00', over: 'deny' }] };
  writeFileSync(path.join(stack.home, 'policy.json'), JSON.stringify(policy), { mode: 0o600 });
});
after(() => stack.close());

const check = (cardId: string) => stack.a.post('/policy/check', { card_id: cardId, amount: '1.00', merchant_name: 'shop.example.com' });

test("an account-wide window counts against a card's card-scoped budget: over it is refused, within it the card's exposure shows it", async () => {
  // 40.00 could all be charged on the budget's card, whose budget is 10.00 a day.
  const large = await stack.a.post('/sign-policy-window', { amount: '40.00', merchant_name: 'shop.example.com' });
  assertError(large, 403, 'policy_denied');
  assert.equal(large.body.error.rule, 'groceries-daily');

  const small = await stack.a.post('/sign-policy-window', { amount: '6.00', merchant_name: 'shop.example.com' });
  assert.equal(small.status, 200, small.text);
  const registered = await stack.a.post('/v1/policy-windows', { jws: small.body.jws });
  assert.equal(registered.status, 201, registered.text);
  assert.deepEqual((await check(stack.cards[0].card_id)).body.budgets, [{ id: 'groceries-daily', limit: '10.00', exposure: '6.00', remaining: '4.00' }]);

  // Charged on the budget's card: the budget has 4.00 left, so 5.00 more on that card is refused.
  const charge = await stack.charge(stack.cards[0].card_id, 'shop.example.com', '6.00');
  assert.equal(charge.body.decision, 'approved', charge.text);
  const over = await stack.a.post('/authorize', { card_id: stack.cards[0].card_id, amount: '5.00', merchant_name: 'shop.example.com' });
  assertError(over, 403, 'policy_denied');
  assert.equal(over.body.error.rule, 'groceries-daily');
  // The other card has no card-scoped budget: nothing limits it.
  const other = await stack.a.post('/authorize', { card_id: stack.cards[1].card_id, amount: '5.00', merchant_name: 'shop.example.com' });
  assert.equal(other.status, 200, other.text);
});

/**
 * The client's types of Variant A's answers (src/client/types.ts) against what the daemon's shape
 * functions return (src/variant-a/shapes.ts, src/variant-common/authorization-shape.ts): the same
 * field names, and every value the daemon writes fits the client's type. These are compile-time
 * checks (`npx tsc --noEmit -p .` fails when the two drift); the test also runs each shape once so
 * the samples are real.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type * as Wire from '../../src/client/types.js';
import type { Authorization } from '../../src/core/model.js';
import type { Card, Transaction } from '../../src/operations/read-model.js';
import { authorizationA } from '../../src/variant-common/authorization-shape.js';
import { allocationA, cardDetailA, cardSummaryA, policyWindowA, transactionA, walletA } from '../../src/variant-a/shapes.js';

/** SameKeys is true when A and B name exactly the same fields (optional ones included). */
type SameKeys<A, B> = [Exclude<keyof A, keyof B>, Exclude<keyof B, keyof A>] extends [never, never] ? true : false;
/** Fits is true when every value of A is a value of B. */
type Fits<A, B> = [A] extends [B] ? true : false;
type Union<T> = T extends unknown ? keyof T : never;
/** Keys of every member of a union (the shapes with optional fields are unions of object types). */
type AllKeys<T> = { [K in Union<T>]: unknown };

type Checks = [
  SameKeys<ReturnType<typeof cardSummaryA>, Wire.Card>,
  Fits<ReturnType<typeof cardSummaryA>, Wire.Card>,
  SameKeys<ReturnType<typeof cardDetailA>, Wire.CardDetail>,
  Fits<ReturnType<typeof cardDetailA>, Wire.CardDetail>,
  SameKeys<AllKeys<ReturnType<typeof authorizationA>>, Wire.Authorization>,
  Fits<ReturnType<typeof authorizationA>, Wire.Authorization>,
  SameKeys<ReturnType<typeof policyWindowA>, Wire.PolicyWindowView>,
  Fits<ReturnType<typeof policyWindowA>, Wire.PolicyWindowView>,
  SameKeys<AllKeys<ReturnType<typeof transactionA>>, Wire.TransactionDetail>,
  Fits<ReturnType<typeof transactionA>, Wire.Transaction | Wire.TransactionDetail>,
  SameKeys<ReturnType<typeof walletA>, Wire.Wallet>,
  Fits<ReturnType<typeof walletA>, Wire.Wallet>,
  SameKeys<ReturnType<typeof allocationA>, Wire.Allocation>,
  Fits<ReturnType<typeof allocationA>, Wire.Allocation>,
];
// A `false` anywhere is a type error here: the client and the daemon disagree about a shape.
const agreed: Checks = [true, true, true, true, true, true, true, true, true, true, true, true, true, true];

const card: Card = { cardId: 'card_a', label: 'L', last4: '4242', status: 'active', balanceMinor: 100, heldMinor: 0, availableMinor: 100, currency: 'USD', dailyLimitMinor: 500, dailySpentMinor: 0 };
const authorization: Authorization = {
  policyId: 'pw_a', cardId: 'card_a', merchant: 'shop.example.com', amountMinor: 100, currency: 'USD', authorizationType: 'exact', kind: 'recurring',
  notBefore: 1_700_000_000, expiresAt: 1_700_001_800, status: 'active', createdAt: 1_700_000_000, transactionId: null,
  recurring: { interval: 'month', intervalCount: 1, maxCharges: null, currentPeriodStart: null, currentPeriodEnd: null },
};
const transaction: Transaction = { id: 'tx_a', cardId: 'card_a', amountMinor: 100, currency: 'USD', merchant: 'shop.example.com', status: 'declined', createdAt: 1_700_000_000, policyId: null, declineCode: 'card_frozen', policyWindow: null };

test('the client\'s types name exactly the fields the daemon writes, and every value fits (checked by the compiler)', () => {
  assert.equal(agreed.every((check) => check), true);
  const detail: Wire.CardDetail = cardDetailA(card);
  const recurring: Wire.Authorization = authorizationA(authorization);
  const declined: Wire.Transaction | Wire.TransactionDetail = transactionA(transaction);
  assert.deepEqual(Object.keys(detail).sort(), ['available', 'balance', 'card_id', 'currency', 'daily_limit', 'daily_spent', 'held', 'label', 'last4', 'status']);
  assert.equal(recurring.interval, 'month');
  assert.equal('policy_window' in declined && declined.policy_window, null);
});

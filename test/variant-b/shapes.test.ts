import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { CreatedAuthorization } from '../../src/core/authorizations.js';
import type { Authorization } from '../../src/core/model.js';
import type { Card, PolicyWindowView, Transaction } from '../../src/operations/read-model.js';
import { allocationB, authorizationResultB, cardDetailB, cardSummaryB, transactionDetailB, transactionSummaryB, walletB } from '../../src/variant-b/shapes.js';

const card: Card = {
  cardId: 'card_abc',
  label: 'Groceries',
  last4: '4242',
  status: 'frozen',
  balanceMinor: 10_050,
  heldMinor: 1_250,
  availableMinor: 8_800,
  currency: 'USD',
  dailyLimitMinor: 50_000,
  dailySpentMinor: 1_234,
};

const window: PolicyWindowView = {
  policyId: 'pw_abc',
  cardId: 'card_abc',
  merchant: 'shop.example.com',
  amountMinor: 1_250,
  currency: 'USD',
  authorizationType: 'exact',
  notBefore: 1_700_000_000,
  notAfter: 1_700_001_800,
  keyId: 'kid',
  jws: 'a.b.c',
};

const transaction: Transaction = {
  id: 'tx_abc',
  cardId: 'card_abc',
  amountMinor: 1_250,
  currency: 'USD',
  merchant: 'shop.example.com',
  status: 'declined',
  createdAt: 1_700_000_000,
  policyId: 'pw_abc',
  declineCode: 'scope_mismatch',
};

function created(transactionId: string | null): CreatedAuthorization {
  const authorization: Authorization = {
    policyId: 'pw_abc',
    cardId: 'card_abc',
    merchant: 'shop.example.com',
    amountMinor: 1_250,
    currency: 'USD',
    authorizationType: 'exact',
    kind: 'one_time',
    notBefore: 1_700_000_000,
    expiresAt: 1_700_001_800,
    status: 'active',
    createdAt: 1_700_000_001,
    transactionId,
    recurring: null,
  };
  return {
    authorization,
    window: {
      payload: {
        v: 1,
        typ: 'card_policy_window',
        policy_id: 'pw_abc',
        device_id: 'dev_abc',
        card_id: 'card_abc',
        merchant: 'shop.example.com',
        amount: '12.50',
        currency: 'USD',
        authorization_type: 'exact',
        kind: 'one_time',
        not_before: 1_700_000_000,
        not_after: 1_700_001_800,
        nonce: 'n',
        iat: 1_700_000_000,
      },
      jws: 'a.b.c',
      keyId: 'kid',
    },
  };
}

describe('Variant B shapes: exactly the spec table, nothing of the core leaks', () => {
  test('cardSummaryB: {id, label, status, balance}; no last4, currency or daily_spent', () => {
    assert.deepEqual(cardSummaryB(card), { id: 'card_abc', label: 'Groceries', status: 'frozen', balance: 100.5 });
  });

  test('cardDetailB adds daily_limit only', () => {
    assert.deepEqual(cardDetailB(card), { id: 'card_abc', label: 'Groceries', status: 'frozen', balance: 100.5, daily_limit: 500 });
  });

  test('authorizationResultB: {tx_id, status: "authorized", signed_at} from the window iat', () => {
    assert.deepEqual(authorizationResultB(created('tx_abc')), { tx_id: 'tx_abc', status: 'authorized', signed_at: '2023-11-14T22:13:20Z' });
  });

  test('authorizationResultB refuses an authorization without a transaction instead of answering tx_id null', () => {
    assert.throws(() => authorizationResultB(created(null)), /without a transaction/);
  });

  test('transactionSummaryB: {id, amount, merchant, status}; decline_code, card_id and policy_id stay on A', () => {
    assert.deepEqual(transactionSummaryB(transaction), { id: 'tx_abc', amount: 12.5, merchant: 'shop.example.com', status: 'declined' });
  });

  test('transactionDetailB adds policy_window with money as a number and times as ISO 8601', () => {
    assert.deepEqual(transactionDetailB({ ...transaction, policyWindow: window }), {
      id: 'tx_abc',
      amount: 12.5,
      merchant: 'shop.example.com',
      status: 'declined',
      policy_window: {
        policy_id: 'pw_abc',
        card_id: 'card_abc',
        merchant: 'shop.example.com',
        amount: 12.5,
        currency: 'USD',
        authorization_type: 'exact',
        not_before: '2023-11-14T22:13:20Z',
        not_after: '2023-11-14T22:43:20Z',
        key_id: 'kid',
        jws: 'a.b.c',
      },
    });
  });

  test('transactionDetailB always has policy_window: null when the transaction has none or it was not read', () => {
    assert.equal(transactionDetailB({ ...transaction, policyWindow: null })['policy_window'], null);
    assert.equal(transactionDetailB(transaction)['policy_window'], null);
    assert.ok(Object.hasOwn(transactionDetailB(transaction), 'policy_window'));
  });

  test('walletB and allocationB', () => {
    assert.deepEqual(walletB({ usdtMinor: 40_000, allocatedMinor: 15_001, availableMinor: 24_999 }), { usdt: 400, allocated: 150.01, available: 249.99 });
    assert.deepEqual(allocationB({ cardId: 'card_abc', allocatedMinor: 5, newBalanceMinor: 10_005 }), { card_id: 'card_abc', allocated: 0.05, new_balance: 100.05 });
  });
});

describe('Variant B money: the JSON text is the exact decimal value', () => {
  // Written as the JSON text a client reads, so a float slip (0.30000000000000004) fails here.
  const cases: Array<[number, string]> = [
    [0, '0'],
    [1, '0.01'],
    [10, '0.1'],
    [30, '0.3'],
    [99, '0.99'],
    [1_250, '12.5'],
    [1_999, '19.99'],
    [100_000, '1000'],
    [1_000_000, '10000'],
    [123_456_789_012, '1234567890.12'],
    [9_999_999_999_999, '99999999999.99'],
    [10_000_000_000_000, '100000000000'],
  ];
  for (const [minor, text] of cases) {
    test(`${minor} minor units → ${text}`, () => {
      assert.equal(JSON.stringify(walletB({ usdtMinor: minor, allocatedMinor: 0, availableMinor: minor })), `{"usdt":${text},"allocated":0,"available":${text}}`);
    });
  }
});

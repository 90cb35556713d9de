import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LatchError } from '../../src/errors/latch-error.js';
import { checkInvariants } from '../../src/sandbox/ledger/invariants.js';
import type { Authorization } from '../../src/sandbox/ledger/state.js';
import type { ChargeRequest } from '../../src/sandbox/ops/charge.js';
import { LedgerHarness, type HarnessDevice } from './harness.js';

const MERCHANT = 'shop.example.com';

interface Scenario {
  name: string;
  /** Sets up windows on the card; returns nothing. */
  setup?: (h: LedgerHarness, device: HarnessDevice, card: string) => Promise<void>;
  charge: Partial<ChargeRequest>;
  expected: string;
  balance?: number;
  dailyLimit?: number;
}

async function window(h: LedgerHarness, device: HarnessDevice, overrides: Record<string, unknown>): Promise<Authorization> {
  const result = await h.window(device, overrides);
  if (result instanceof LatchError) throw new Error(`window refused: ${result.code}`);
  return result;
}

const scenarios: Scenario[] = [
  { name: 'exact window, exact amount', setup: async (h, d, c) => void (await window(h, d, { card_id: c })), charge: {}, expected: 'approved' },
  { name: 'unknown card', charge: { cardId: 'card_doesnotexist1234' }, expected: 'card_not_found' },
  { name: 'closed card', setup: async (h, _d, c) => void (await h.closeCard(c)), charge: {}, expected: 'card_closed' },
  { name: 'no window at all', charge: {}, expected: 'card_frozen' },
  { name: 'other merchant while a window is active', setup: async (h, d, c) => void (await window(h, d, { card_id: c })), charge: { merchant: 'example.com' }, expected: 'scope_mismatch' },
  { name: 'subdomain is not the merchant', setup: async (h, d, c) => void (await window(h, d, { card_id: c, merchant: 'example.com' })), charge: { merchant: 'shop.example.com' }, expected: 'scope_mismatch' },
  { name: 'exact window, amount one cent lower', setup: async (h, d, c) => void (await window(h, d, { card_id: c })), charge: { amount: 9_99 }, expected: 'scope_mismatch' },
  { name: 'exact window, amount one cent higher', setup: async (h, d, c) => void (await window(h, d, { card_id: c })), charge: { amount: 10_01 }, expected: 'scope_mismatch' },
  { name: 'ceiling window, lower amount', setup: async (h, d, c) => void (await window(h, d, { card_id: c, authorization_type: 'ceiling' })), charge: { amount: 3_00 }, expected: 'approved' },
  { name: 'ceiling window, above the ceiling', setup: async (h, d, c) => void (await window(h, d, { card_id: c, authorization_type: 'ceiling' })), charge: { amount: 10_01 }, expected: 'scope_mismatch' },
  { name: 'currency other than the window', setup: async (h, d, c) => void (await window(h, d, { card_id: c })), charge: { currency: 'EUR' }, expected: 'scope_mismatch' },
  { name: 'window not started yet', setup: async (h, d, c) => void (await window(h, d, { card_id: c, not_before: h.ledger.now() + 200, not_after: h.ledger.now() + 2000 })), charge: {}, expected: 'scope_mismatch' },
  {
    name: 'window expired',
    setup: async (h, d, c) => {
      await window(h, d, { card_id: c, not_after: h.ledger.now() + 60 });
      h.clockSeconds += 61;
    },
    charge: {},
    expected: 'authorization_expired',
  },
  {
    name: 'window expired while another merchant is active',
    setup: async (h, d, c) => {
      await window(h, d, { card_id: c, not_after: h.ledger.now() + 60 });
      await window(h, d, { card_id: c, merchant: 'other.example.com', not_after: h.ledger.now() + 6000 });
      h.clockSeconds += 61;
    },
    charge: {},
    expected: 'authorization_expired',
  },
  {
    name: 'window already used',
    setup: async (h, d, c) => {
      await window(h, d, { card_id: c });
      assert.equal((await h.charge({ cardId: c, merchant: MERCHANT, amount: 10_00, currency: 'USD' })).decision, 'approved');
    },
    charge: {},
    expected: 'card_frozen',
  },
  {
    name: 'window revoked',
    setup: async (h, d, c) => {
      const w = await window(h, d, { card_id: c });
      assert.ok(!((await h.revoke(d, w.policy_id)) instanceof LatchError));
    },
    charge: {},
    expected: 'card_frozen',
  },
  { name: 'account-wide window pays any card of the account', setup: async (h, d) => void (await window(h, d, { typ: 'policy_window' })), charge: {}, expected: 'approved' },
  { name: 'account-wide window checks funds at charge time', balance: 5_00, setup: async (h, d) => void (await window(h, d, { typ: 'policy_window' })), charge: {}, expected: 'insufficient_funds' },
  { name: 'account-wide window checks the daily limit at charge time', dailyLimit: 9_00, setup: async (h, d) => void (await window(h, d, { typ: 'policy_window' })), charge: {}, expected: 'daily_limit_exceeded' },
  {
    name: 'account-wide window cannot take funds held for another window',
    balance: 15_00,
    setup: async (h, d, c) => {
      await window(h, d, { card_id: c, merchant: 'held.example.com', amount: '10.00' });
      await window(h, d, { typ: 'policy_window' });
    },
    charge: {},
    expected: 'insufficient_funds',
  },
  {
    name: 'daily limit counts holds placed today',
    dailyLimit: 15_00,
    setup: async (h, d, c) => {
      await window(h, d, { card_id: c, merchant: 'held.example.com', amount: '6.00' });
      await window(h, d, { typ: 'policy_window' });
    },
    charge: {},
    expected: 'daily_limit_exceeded',
  },
  {
    name: 'a holding window is captured even when the limit was lowered after it was placed',
    setup: async (h, d, c) => {
      await window(h, d, { card_id: c });
      await h.run((txn) => txn.emit({ type: 'card_updated', card_id: c, daily_limit: 0 }));
    },
    charge: {},
    expected: 'approved',
  },
  { name: 'recurring window, first period', setup: async (h, d, c) => void (await window(h, d, { card_id: c, kind: 'recurring', interval: 'month', not_after: h.ledger.now() + 400 * 86_400 })), charge: {}, expected: 'approved' },
  {
    name: 'recurring window, second charge in the same period',
    setup: async (h, d, c) => {
      await window(h, d, { card_id: c, kind: 'recurring', interval: 'month', not_after: h.ledger.now() + 400 * 86_400 });
      assert.equal((await h.charge({ cardId: c, merchant: MERCHANT, amount: 10_00, currency: 'USD' })).decision, 'approved');
      h.clockSeconds += 20 * 86_400;
    },
    charge: {},
    expected: 'scope_mismatch',
  },
  {
    name: 'recurring window, next period',
    setup: async (h, d, c) => {
      await window(h, d, { card_id: c, kind: 'recurring', interval: 'month', not_after: h.ledger.now() + 400 * 86_400 });
      assert.equal((await h.charge({ cardId: c, merchant: MERCHANT, amount: 10_00, currency: 'USD' })).decision, 'approved');
      h.clockSeconds += 31 * 86_400;
    },
    charge: {},
    expected: 'approved',
  },
  {
    name: 'recurring window with max_charges reached',
    setup: async (h, d, c) => {
      await window(h, d, { card_id: c, kind: 'recurring', interval: 'day', max_charges: 1, not_after: h.ledger.now() + 40 * 86_400 });
      assert.equal((await h.charge({ cardId: c, merchant: MERCHANT, amount: 10_00, currency: 'USD' })).decision, 'approved');
      h.clockSeconds += 2 * 86_400;
    },
    charge: {},
    expected: 'card_frozen',
  },
  { name: 'recurring window checks funds per charge', balance: 5_00, setup: async (h, d, c) => void (await window(h, d, { card_id: c, kind: 'recurring', interval: 'day', not_after: h.ledger.now() + 9 * 86_400 })), charge: {}, expected: 'insufficient_funds' },
];

for (const scenario of scenarios) {
  test(`charge: ${scenario.name} → ${scenario.expected}`, async () => {
    const h = await LedgerHarness.create();
    try {
      const device = await h.device();
      const card = await h.card(device.accountId, scenario.balance ?? 100_00, scenario.dailyLimit ?? 1000_00);
      await scenario.setup?.(h, device, card);
      const before = structuredClone(h.ledger.state);
      const decision = await h.charge({ cardId: card, merchant: MERCHANT, amount: 10_00, currency: 'USD', ...scenario.charge });
      assert.equal(decision.declineCode ?? decision.decision, scenario.expected);
      assert.equal(decision.transaction.status, scenario.expected === 'approved' ? 'settled' : 'declined');
      assert.deepEqual(checkInvariants(h.ledger.state), []);
      const cardAfter = h.ledger.state.cards.get(card);
      if (scenario.expected === 'approved') {
        assert.equal(cardAfter?.balance, (before.cards.get(card)?.balance ?? 0) - decision.transaction.amount);
      } else {
        assert.equal(cardAfter?.balance, before.cards.get(card)?.balance, 'a decline moves no money');
      }
    } finally {
      await h.dispose();
    }
  });
}

test('charge: an approved one-time charge settles the window\'s own transaction and refreezes the card', async () => {
  const h = await LedgerHarness.create();
  try {
    const device = await h.device();
    const card = await h.card(device.accountId, 100_00);
    const w = await window(h, device, { card_id: card, authorization_type: 'ceiling', amount: '30.00' });
    const decision = await h.charge({ cardId: card, merchant: MERCHANT, amount: 12_34, currency: 'USD' });
    const state = h.ledger.state;
    assert.equal(decision.transaction.id, w.transaction_id);
    assert.equal(decision.transaction.amount, 12_34);
    assert.equal(state.authorizations.get(w.policy_id)?.status, 'used');
    const c = state.cards.get(card);
    assert.deepEqual([c?.balance, c?.held], [87_66, 0], 'the rest of the ceiling hold is released');
    const wallet = state.accounts.get(device.accountId)?.wallet;
    assert.deepEqual(wallet, { usdt: 87_66, allocated: 87_66, available: 0 });
  } finally {
    await h.dispose();
  }
});

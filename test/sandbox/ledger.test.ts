import { test } from 'node:test';
import assert from 'node:assert/strict';
import { statSync, truncateSync } from 'node:fs';
import { LatchError } from '../../src/errors/latch-error.js';
import { apply } from '../../src/sandbox/ledger/apply.js';
import { checkInvariants } from '../../src/sandbox/ledger/invariants.js';
import { emptyState, type Authorization } from '../../src/sandbox/ledger/state.js';
import { LedgerHarness } from './harness.js';

function authorization(value: Authorization | LatchError): Authorization {
  if (value instanceof LatchError) throw new Error(`expected an authorization, got ${value.code}`);
  return value;
}

test('ledger: the state after a restart equals the state before it', async () => {
  const h = await LedgerHarness.create();
  try {
    const device = await h.device();
    const cardA = await h.card(device.accountId, 50_00);
    const cardB = await h.card(device.accountId, 0);
    await h.deposit(device.accountId, 20_00);
    await h.allocate(device.accountId, cardB, 15_00);
    const exact = authorization(await h.window(device, { card_id: cardA, amount: '10.00' }));
    authorization(await h.window(device, { card_id: cardA, amount: '5.00', authorization_type: 'ceiling', merchant: 'other.example.org' }));
    const revoked = authorization(await h.window(device, { card_id: cardB, amount: '1.00' }));
    authorization(await h.window(device, { card_id: cardB, kind: 'recurring', interval: 'day', amount: '2.00', authorization_type: 'ceiling', not_after: h.ledger.now() + 10 * 86_400 }));
    authorization(await h.window(device, { typ: 'policy_window', merchant: 'any.example.net', amount: '3.00' }));
    assert.equal((await h.charge({ cardId: cardA, merchant: 'shop.example.com', amount: 10_00, currency: 'USD' })).decision, 'approved');
    assert.equal((await h.charge({ cardId: cardA, merchant: 'shop.example.com', amount: 10_00, currency: 'USD' })).decision, 'declined');
    assert.ok(!((await h.revoke(device, revoked.policy_id)) instanceof LatchError));
    h.clockSeconds += 3600;
    await h.run(() => undefined);
    assert.equal(h.ledger.state.authorizations.get(exact.policy_id)?.status, 'used');
    assert.deepEqual(checkInvariants(h.ledger.state), []);

    const before = structuredClone(h.ledger.state);
    await h.restart();
    assert.deepEqual(h.ledger.state, before);
  } finally {
    await h.dispose();
  }
});

test('ledger: a torn last record loses only the last operation, never an earlier one', async () => {
  const h = await LedgerHarness.create();
  try {
    const device = await h.device();
    const card = await h.card(device.accountId, 50_00);
    authorization(await h.window(device, { card_id: card }));
    const before = structuredClone(h.ledger.state);
    const sizeBefore = statSync(h.journalPath).size;
    assert.equal((await h.charge({ cardId: card, merchant: 'shop.example.com', amount: 10_00, currency: 'USD' })).decision, 'approved');
    // The crash happened mid-write of the charge's record: a few of its bytes reached the disk.
    truncateSync(h.journalPath, sizeBefore + 7);
    await h.restart();
    assert.equal(h.ledger.droppedBytes, 7);
    assert.deepEqual(h.ledger.state, before);
    assert.equal(statSync(h.journalPath).size, sizeBefore);
  } finally {
    await h.dispose();
  }
});

test('ledger: apply refuses records out of sequence and events that do not fit the state', () => {
  assert.throws(() => apply(emptyState(), { seq: 2, at: 0, real_at: 0, events: [] }), /follows/);
  assert.throws(() => apply(emptyState(), { seq: 1, at: 0, real_at: 0, events: [{ type: 'deposited', account_id: 'acct_x', amount: 1 }] }), /unknown account/);
  const state = emptyState();
  apply(state, { seq: 1, at: 0, real_at: 0, events: [{ type: 'account_created', account_id: 'acct_x', created_at: 0 }] });
  assert.throws(() => apply(state, { seq: 2, at: 0, real_at: 0, events: [{ type: 'clock_advanced', seconds: -5 }] }), /only moves forward/);
});

test('ledger: expiry is consistent before any sweeper runs, and releases the hold', async () => {
  const h = await LedgerHarness.create();
  try {
    const device = await h.device();
    const card = await h.card(device.accountId, 50_00);
    const window = authorization(await h.window(device, { card_id: card, amount: '40.00', not_after: h.ledger.now() + 120 }));
    assert.equal(h.ledger.state.cards.get(card)?.held, 40_00);
    h.clockSeconds += 121;
    const decision = await h.charge({ cardId: card, merchant: 'shop.example.com', amount: 40_00, currency: 'USD' });
    assert.equal(decision.declineCode, 'authorization_expired');
    const state = h.ledger.state;
    assert.equal(state.authorizations.get(window.policy_id)?.status, 'expired');
    assert.equal(state.transactions.get(window.transaction_id as string)?.status, 'expired');
    assert.equal(state.cards.get(card)?.held, 0);
    // The freed funds can be held again at once.
    assert.ok(!((await h.window(device, { card_id: card, amount: '50.00' })) instanceof LatchError));
  } finally {
    await h.dispose();
  }
});

test('ledger: 50 concurrent charges on one exact window give exactly one approval', async () => {
  const h = await LedgerHarness.create();
  try {
    const device = await h.device();
    const card = await h.card(device.accountId, 1000_00);
    authorization(await h.window(device, { card_id: card, amount: '10.00' }));
    const decisions = await Promise.all(Array.from({ length: 50 }, () => h.charge({ cardId: card, merchant: 'shop.example.com', amount: 10_00, currency: 'USD' })));
    assert.equal(decisions.filter((d) => d.decision === 'approved').length, 1);
    assert.equal(h.ledger.state.cards.get(card)?.balance, 990_00);
    assert.deepEqual(checkInvariants(h.ledger.state), []);
  } finally {
    await h.dispose();
  }
});

test('ledger: the per-day totals follow holds, settlements and releases, and a wrong total is reported', async () => {
  const h = await LedgerHarness.create();
  try {
    const device = await h.device();
    const card = await h.card(device.accountId, 100_00);
    const day = (cardId: string) => ({
      held: [...h.ledger.state.held_by_card_day].filter(([key]) => key.startsWith(cardId)).map(([, total]) => total),
      settled: [...h.ledger.state.settled_by_card_day].filter(([key]) => key.startsWith(cardId)).map(([, total]) => total),
    });
    authorization(await h.window(device, { card_id: card, amount: '10.00' }));
    const revoked = authorization(await h.window(device, { card_id: card, amount: '7.00', merchant: 'other.example.org' }));
    assert.deepEqual(day(card), { held: [17_00], settled: [] });
    assert.equal((await h.charge({ cardId: card, merchant: 'shop.example.com', amount: 10_00, currency: 'USD' })).decision, 'approved');
    assert.deepEqual(day(card), { held: [7_00], settled: [10_00] });
    assert.ok(!((await h.revoke(device, revoked.policy_id)) instanceof LatchError));
    assert.deepEqual(day(card), { held: [], settled: [10_00] });
    // The day's limit still counts the settlement: a window beyond what is left is refused.
    await h.run((txn) => txn.emit({ type: 'card_updated', card_id: card, daily_limit: 15_00 }));
    const refused = await h.window(device, { card_id: card, amount: '6.00' });
    assert.ok(refused instanceof LatchError && refused.code === 'daily_limit_exceeded');
    assert.deepEqual(checkInvariants(h.ledger.state), []);

    const [key, total] = [...h.ledger.state.settled_by_card_day][0] as [string, number];
    h.ledger.state.settled_by_card_day.set(key, total + 1);
    assert.deepEqual(checkInvariants(h.ledger.state), ['settled_by_card_day differs from the settled transactions']);
    h.ledger.state.settled_by_card_day.set(key, total);
    h.ledger.state.held_by_card_day.set(key, 1);
    assert.deepEqual(checkInvariants(h.ledger.state), ['held_by_card_day differs from the holds of active windows']);
  } finally {
    await h.dispose();
  }
});

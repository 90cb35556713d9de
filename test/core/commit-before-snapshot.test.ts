/**
 * The seam the red team found (issue 42): a store that changed memory only after its append let a
 * compaction taken in between write a snapshot without the record. Every store now commits
 * (record-store.ts): while a record's append is still on its way to the disk, the live records a
 * compaction would write already hold it; and a failed append undoes it.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApprovalBook, APPROVAL_RECORD_TYPE } from '../../src/core/approval-book.js';
import { AUTHORIZATION_RECORD_TYPE, StoredAuthorizationLedger, type AuthorizationEntry } from '../../src/core/authorization-ledger.js';
import { HELD_WINDOW_RECORD_TYPE, HeldWindows } from '../../src/core/held-windows.js';
import type { StateRecord } from '../../src/core/record-store.js';
import { MemoryRecordStore } from '../support/memory-record-store.js';
import { PENDING_APPROVAL } from '../support/pending-approval.js';
import type { Approval } from '../../src/core/approval.js';

const NOW = 1_800_000_000;

/** gated is a store whose appends wait until the test lets them land, or fail them. */
function gated(): { store: MemoryRecordStore; land: () => void; fail: () => void; waiting: () => number } {
  const store = new MemoryRecordStore([], () => NOW);
  const queue: Array<{ resolve: () => void; reject: (error: Error) => void }> = [];
  store.append = () => new Promise<void>((resolve, reject) => queue.push({ resolve, reject }));
  return { store, land: () => queue.shift()?.resolve(), fail: () => queue.shift()?.reject(new Error('disk full')), waiting: () => queue.length };
}

const snapshot = (store: MemoryRecordStore, type: string): StateRecord[] => store.owners.get(type)?.live(NOW) ?? [];

const PENDING = PENDING_APPROVAL;

test("an approval's decision is in the snapshot while its append is on its way, and a failed append takes it back", async () => {
  const { store, land, fail } = gated();
  const book = new ApprovalBook(store);
  const pending = PENDING;
  const added = book.add(pending);
  land();
  await added;
  const denied = book.update({ ...pending, status: 'denied', decidedAtSeconds: NOW });
  assert.deepEqual(snapshot(store, APPROVAL_RECORD_TYPE).map((record) => (record['approval'] as Approval).status), ['denied'], 'a compaction now writes the decision');
  land();
  await denied;
  const second = { ...pending, id: 'ap_2' };
  const failing = book.add(second);
  fail();
  await assert.rejects(failing, /disk full/);
  assert.equal(book.get('ap_2'), undefined, 'never acknowledged, never there');
});

test("AP2 mandates and a held window are in the snapshot while their appends are on their way", async () => {
  const { store, land, waiting } = gated();
  const ledger = new StoredAuthorizationLedger(store, () => NOW);
  const held = new HeldWindows(store);
  const entry: AuthorizationEntry = { policyId: 'pw_1', agent: 'shopper', cardId: 'card_1', merchant: 'm.example', currency: 'USD', amountMinor: 100, kind: 'one_time', authorizationType: 'exact', signedAtSeconds: NOW, notAfterSeconds: NOW + 60, state: 'active', usedMinor: null, evidence: { request: { kind: 'ap2_mandate' } as never, requestSha256: 'ab'.repeat(32), receivedAtSeconds: NOW, window: { policy_id: 'pw_1' } as never, keyId: 'k', decision: { decision: 'allow', rule: null, reasons: [], policySha256: null }, approvalId: null } };
  const recorded = ledger.record(entry);
  land();
  await recorded;
  const kept = ledger.keepMandates('pw_1', { mandateId: 'md_1', openCheckoutMandate: 'c', openPaymentMandate: 'p', openCheckoutHash: 'h', keyId: 'mk', iat: NOW, exp: NOW + 60 });
  const holding = held.hold('pw_1', 'a.b.c', '/v1/authorizations', NOW + 60);
  assert.equal(waiting(), 2);
  const written = snapshot(store, AUTHORIZATION_RECORD_TYPE).find((record) => record['policy_id'] === 'pw_1');
  assert.equal((written?.['evidence'] as { ap2_mandates?: { mandate_id: string } }).ap2_mandates?.mandate_id, 'md_1', 'the mandates are in the entry a compaction writes');
  assert.equal(ledger.get('pw_1')?.evidence?.mandates, undefined, 'and handed to no reader before they are on disk');
  assert.deepEqual(snapshot(store, HELD_WINDOW_RECORD_TYPE).map((record) => record['policy_id']), ['pw_1'], 'the held window is in the snapshot');
  land();
  land();
  await Promise.all([kept, holding]);
  assert.equal(ledger.get('pw_1')?.evidence?.mandates?.mandateId, 'md_1');
});

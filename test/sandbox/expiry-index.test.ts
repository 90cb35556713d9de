/**
 * Expiry by a time-ordered index (docs/decisions.md §39.4): the index always holds exactly the
 * active windows by not_after (checked against a plain sort after random changes), expiry ends
 * exactly the windows a full scan would, and it reads no window that is not due.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { expiredBefore, indexExpiry, unindexExpiry, type ExpiryIndex } from '../../src/sandbox/ledger/expiry-index.js';
import { emptyState, type Authorization } from '../../src/sandbox/ledger/state.js';
import { expireDue } from '../../src/sandbox/ops/expiry.js';
import type { Txn } from '../../src/sandbox/ledger/ledger.js';
import type { LedgerEvent } from '../../src/sandbox/ledger/events.js';

/** A deterministic generator, so a failure can be replayed. */
function generator(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

test('after random insertions and removals the index is the live windows sorted by not_after, then id', () => {
  const random = generator(48);
  const index: ExpiryIndex = [];
  const live = new Map<string, number>();
  for (let step = 0; step < 5_000; step += 1) {
    const ids = [...live.keys()];
    if (ids.length > 0 && random() < 0.4) {
      const id = ids[Math.floor(random() * ids.length)] as string;
      unindexExpiry(index, live.get(id) as number, id);
      live.delete(id);
    } else {
      const id = `pw_${step}`;
      // Mostly later than everything (the common case), sometimes anywhere, with many ties.
      const notAfter = random() < 0.7 ? 1_000 + step : Math.floor(random() * 1_000) + 1_000;
      indexExpiry(index, notAfter, id);
      live.set(id, notAfter);
    }
    unindexExpiry(index, 5, 'pw_absent');
  }
  const sorted = [...live].map(([id, notAfter]) => [notAfter, id]).sort((a, b) => (a[0] as number) - (b[0] as number) || ((a[1] as string) < (b[1] as string) ? -1 : 1));
  assert.deepEqual(index, sorted);
  const now = 1_500;
  assert.deepEqual(expiredBefore(index, now), sorted.filter(([notAfter]) => (notAfter as number) < now).map(([, id]) => id));
});

test('expireDue ends the due windows and reads none of the windows not due', () => {
  const state = emptyState();
  const due = new Set<string>();
  for (let n = 0; n < 2_000; n += 1) {
    const policyId = `pw_${n}`;
    const notAfter = n % 100 === 0 ? 50 : 10_000 + n;
    if (notAfter < 100) due.add(policyId);
    state.authorizations.set(policyId, { policy_id: policyId, not_after: notAfter, status: 'active' } as Authorization);
    state.active_authorizations.add(policyId);
    indexExpiry(state.expiry_index, notAfter, policyId);
  }
  // Count every look at a window: a scan of the active set looks at all 2,000.
  let looked = 0;
  const windows = state.authorizations;
  const get = windows.get.bind(windows);
  windows.get = (policyId: string) => {
    looked += 1;
    return get(policyId);
  };
  const ended: string[] = [];
  const txn = { state, now: 100, realNow: 100, emit: (event: LedgerEvent) => event.type === 'authorization_ended' && ended.push(event.policy_id) } as unknown as Txn;
  expireDue(txn);
  assert.deepEqual(new Set(ended), due);
  assert.equal(ended.length, due.size);
  assert.ok(looked <= due.size, `expiry looked at ${looked} windows for ${due.size} due`);
});

/**
 * The authorization ledger: entries durable in state.journal, pages newest first per agent and
 * per card with a cursor, status changes at most once, a reopen (the crash case) rebuilding
 * exactly what was acknowledged, and the pipeline writing an entry before registration.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { StoredAuthorizationLedger, type AuthorizationEntry } from '../../src/core/authorization-ledger.js';
import { Journal } from '../../src/store/journal.js';
import { StateStore } from '../../src/datadir/state-store.js';
import { tempJournalPath } from '../support/temp-journal.js';
import { MemoryRecordStore } from '../support/memory-record-store.js';
import { LedgerPages, type LedgerPageQuery } from '../../src/operations/ledger-pages.js';

/** The listing's pages of a ledger (src/operations/ledger-pages.ts), one per ledger, as the daemon makes them. */
const pages = new WeakMap<StoredAuthorizationLedger, LedgerPages>();
function pagesOf(ledger: StoredAuthorizationLedger): LedgerPages {
  const found = pages.get(ledger) ?? new LedgerPages(ledger);
  pages.set(ledger, found);
  return found;
}

const NOW = 1_800_000_000;
function entry(n: number, overrides: Partial<AuthorizationEntry> = {}): AuthorizationEntry {
  return {
    policyId: `pw_${String(n).padStart(4, '0')}`,
    agent: n % 2 === 0 ? 'owner' : 'shopper',
    cardId: n % 3 === 0 ? null : `card_${n % 3}`,
    merchant: 'shop.example',
    currency: 'USD',
    amountMinor: 100 * n,
    kind: 'one_time',
    authorizationType: 'exact',
    signedAtSeconds: NOW + n,
    notAfterSeconds: NOW + n + 900,
    state: 'active',
    usedMinor: null,
    ...overrides,
  };
}

async function openLedger(file: string, now = NOW + 1000): Promise<{ store: StateStore; ledger: StoredAuthorizationLedger }> {
  const store = new StateStore(file, () => now);
  const ledger = new StoredAuthorizationLedger(store, () => now);
  await store.open();
  return { store, ledger };
}

const ids = (entries: AuthorizationEntry[]): string[] => entries.map((e) => e.policyId);

test('pages are newest first, per agent and per card, and follow the cursor', async () => {
  const ledger = new StoredAuthorizationLedger(new MemoryRecordStore(), () => NOW + 1000);
  for (let n = 1; n <= 12; n++) await ledger.record(entry(n));
  const cases: Array<{ query: LedgerPageQuery; want: string[]; hasMore: boolean }> = [
    { query: { limit: 3 }, want: ['pw_0012', 'pw_0011', 'pw_0010'], hasMore: true },
    { query: { limit: 3, startingAfter: 'pw_0010' }, want: ['pw_0009', 'pw_0008', 'pw_0007'], hasMore: true },
    { query: { limit: 5, startingAfter: 'pw_0003' }, want: ['pw_0002', 'pw_0001'], hasMore: false },
    { query: { limit: 2, startingAfter: 'pw_0002' }, want: ['pw_0001'], hasMore: false },
    { query: { limit: 3, agent: 'shopper' }, want: ['pw_0011', 'pw_0009', 'pw_0007'], hasMore: true },
    { query: { limit: 3, agent: 'shopper', startingAfter: 'pw_0003' }, want: ['pw_0001'], hasMore: false },
    { query: { limit: 10, cardId: 'card_2' }, want: ['pw_0011', 'pw_0008', 'pw_0005', 'pw_0002'], hasMore: false },
    { query: { limit: 10, agent: 'owner', cardId: 'card_1' }, want: ['pw_0010', 'pw_0004'], hasMore: false },
    { query: { limit: 1, agent: 'owner', cardId: 'card_1' }, want: ['pw_0010'], hasMore: true },
    { query: { limit: 3, agent: 'nobody' }, want: [], hasMore: false },
    { query: { limit: 3, cardId: 'card_9' }, want: [], hasMore: false },
    // A cursor from another filter, or unknown, is an empty page, never the start again.
    { query: { limit: 3, agent: 'shopper', startingAfter: 'pw_0002' }, want: [], hasMore: false },
    { query: { limit: 3, startingAfter: 'pw_9999' }, want: [], hasMore: false },
  ];
  for (const { query, want, hasMore } of cases) {
    const page = pagesOf(ledger).page(query);
    assert.deepEqual(ids(page.entries), want, JSON.stringify(query));
    assert.equal(page.hasMore, hasMore, JSON.stringify(query));
  }
  for (const limit of [0, -1, 101, 1.5]) assert.throws(() => pagesOf(ledger).page({ limit }));
});

test('noteStatus changes an active entry once; later, repeated and unknown reports are ignored', async () => {
  const seen: string[] = [];
  const ledger = new StoredAuthorizationLedger(new MemoryRecordStore(), () => NOW + 1000);
  ledger.onStatus((e) => seen.push(`${e.policyId}:${e.state}:${e.usedMinor}`));
  await ledger.record(entry(1));
  await ledger.record(entry(2));
  await ledger.noteStatus('pw_0001', 'used', 55);
  await ledger.noteStatus('pw_0001', 'revoked');
  await ledger.noteStatus('pw_0001', 'used', 99);
  await ledger.noteStatus('pw_0002', 'active');
  await ledger.noteStatus('pw_0002', 'used');
  await ledger.noteStatus('pw_nope', 'expired');
  assert.deepEqual(seen, ['pw_0001:used:55', 'pw_0002:used:200']);
  assert.equal(ledger.get('pw_0001')?.usedMinor, 55);
  await assert.rejects(ledger.record(entry(1)), /already recorded/);
  await assert.rejects(ledger.record({ ...entry(3), amountMinor: -1 }), /malformed/);
  await ledger.record(entry(3));
  await assert.rejects(ledger.noteStatus('pw_0003', 'used', 1.5), /usedMinor/);
  assert.equal(ledger.get('pw_0003')?.state, 'active');
});

test('a reopened store (the crash case) holds every acknowledged entry with its last state', async () => {
  const file = tempJournalPath();
  const first = await openLedger(file);
  for (let n = 1; n <= 6; n++) await first.ledger.record(entry(n));
  await first.ledger.noteStatus('pw_0002', 'used', 150);
  await first.ledger.noteStatus('pw_0003', 'failed');
  await first.ledger.noteStatus('pw_0004', 'revoked');
  // No close(): what is on disk is what a kill -9 leaves.
  const replayedStates: string[] = [];
  const store = new StateStore(file, () => NOW + 1000);
  const second = new StoredAuthorizationLedger(store, () => NOW + 1000);
  second.onStatus((e) => replayedStates.push(`${e.policyId}:${e.state}`));
  await store.open();
  assert.equal(second.size, 6);
  assert.deepEqual(
    ['pw_0001', 'pw_0002', 'pw_0003', 'pw_0004'].map((id) => [second.get(id)?.state, second.get(id)?.usedMinor]),
    [['active', null], ['used', 150], ['failed', null], ['revoked', null]],
  );
  assert.deepEqual(replayedStates, ['pw_0002:used', 'pw_0003:failed', 'pw_0004:revoked']);
  assert.deepEqual(ids(pagesOf(second).page({ limit: 2, agent: 'owner' }).entries), ['pw_0006', 'pw_0004']);
  assert.deepEqual(ids([...second.since(NOW + 5)] as AuthorizationEntry[]), ['pw_0005', 'pw_0006']);
  await first.store.close();
  await store.close();
});

test('past retention, spent entries are forgotten and compacted away; active unexpired ones stay', async () => {
  const file = tempJournalPath();
  let now = NOW + 1000;
  const store = new StateStore(file, () => now);
  const ledger = new StoredAuthorizationLedger(store, () => now, 10_000);
  await store.open();
  await ledger.record(entry(1));
  await ledger.record(entry(2));
  await ledger.noteStatus('pw_0002', 'expired');
  await ledger.record(entry(3, { notAfterSeconds: NOW + 1_000_000 }));
  await ledger.record(entry(4));
  now = NOW + 20_000;
  // Forgotten oldest first: the still-spendable pw_0003 keeps itself and everything after it.
  assert.deepEqual(ids(pagesOf(ledger).page({ limit: 10 }).entries), ['pw_0004', 'pw_0003']);
  await store.close();
  const reopenedStore = new StateStore(file, () => now);
  const reopened = new StoredAuthorizationLedger(reopenedStore, () => now, 10_000);
  await reopenedStore.open();
  assert.deepEqual(ids(pagesOf(reopened).page({ limit: 10 }).entries), ['pw_0004', 'pw_0003']);
  await reopenedStore.close();
});

test('a malformed authorization record refuses the start', async () => {
  const file = tempJournalPath();
  const first = await openLedger(file);
  await first.ledger.record(entry(1));
  await first.store.close();
  // Write a record of the right type with a wrong field, as damage or another version could
  // (straight to the journal: the store's commit would refuse it before writing).
  const { journal } = await Journal.open(file);
  await journal.append(Buffer.from(JSON.stringify({ type: 'authorization', policy_id: 'pw_x', amount_minor: 'ten' })));
  await journal.close();
  const again = new StateStore(file, () => NOW);
  new StoredAuthorizationLedger(again, () => NOW);
  await assert.rejects(again.open(), /malformed/);
});

test('recordSigned writes the entry with its window in one record; a sign that throws writes nothing and counts nothing', async () => {
  const store = new MemoryRecordStore();
  const ledger = new StoredAuthorizationLedger(store, () => NOW + 1000);
  const seen: string[] = [];
  ledger.onStatus((changed) => seen.push(`${changed.policyId}:${changed.state}`));
  // The signer finds the entry active while it signs, before anything is written.
  const jws = await ledger.recordSigned(entry(1), () => `${ledger.get('pw_0001')?.state ?? 'absent'}.${store.records.length}.sig`);
  assert.equal(jws, 'active.0.sig');
  assert.deepEqual(store.records.map((record) => [record.type, record['jws']]), [['authorization', 'active.0.sig']]);
  assert.equal(ledger.get('pw_0001')?.jws, 'active.0.sig');
  await assert.rejects(ledger.recordSigned(entry(3), () => { throw new Error('the signer refuses'); }), /the signer refuses/);
  assert.equal(store.records.length, 1, 'nothing signed, nothing written');
  assert.equal(ledger.get('pw_0003')?.state, 'failed', 'and its reservation is given back');
  assert.deepEqual(seen, ['pw_0003:failed']);
  await assert.rejects(ledger.recordSigned(entry(1), () => 'again'), /already recorded/);
});

test('recordSigned resolves only once the record is durable, and a failed write leaves the entry failed', async () => {
  const failing = new MemoryRecordStore();
  failing.append = async () => {
    throw new Error('disk full');
  };
  const ledger = new StoredAuthorizationLedger(failing, () => NOW + 1000);
  await assert.rejects(ledger.recordSigned(entry(1), () => 'sig'), /disk full/);
  assert.equal(ledger.get('pw_0001')?.state, 'failed');
  // Never durable, so never kept: no reader and no later compaction sees the window.
  assert.equal(ledger.get('pw_0001')?.jws, undefined);
  assert.ok(failing.owners.get('authorization')?.live(NOW + 1000).every((record) => record['jws'] === undefined));
  // While the append is on its way, the promise waits and no reader gets the JWS.
  let landed: () => void = () => {};
  const slow = new MemoryRecordStore();
  slow.append = () => new Promise<void>((resolve) => (landed = resolve));
  const waiting = new StoredAuthorizationLedger(slow, () => NOW + 1000);
  let resolved = false;
  const recorded = waiting.recordSigned(entry(3), () => 'pending.jws.sig').then((jws) => ((resolved = true), jws));
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(resolved, false, 'recordSigned waits for the append');
  assert.equal(waiting.get('pw_0003')?.state, 'active');
  assert.equal(waiting.get('pw_0003')?.jws, undefined, 'the JWS is not handed out before its record is on disk');
  landed();
  assert.equal(await recorded, 'pending.jws.sig');
  assert.equal(waiting.get('pw_0003')?.jws, 'pending.jws.sig');
  // Through the real journal: a reopen (the crash case) has the entry with its JWS.
  const file = tempJournalPath();
  const first = await openLedger(file);
  await first.ledger.recordSigned(entry(2), () => 'kept.jws.sig');
  await first.store.close();
  const second = await openLedger(file);
  assert.equal(second.ledger.get('pw_0002')?.jws, 'kept.jws.sig');
  assert.equal(second.ledger.get('pw_0002')?.state, 'active');
  await second.store.close();
});

test('recordSigned under concurrent compactions writes each entry once, with its JWS', async () => {
  // A journal that compacts every few records: each entry must survive exactly once, whichever
  // side of a compaction its append lands on (a second copy refuses the start as a duplicate).
  const file = tempJournalPath();
  const limits = { recordBytesMax: 64 * 1024, fileBytesMax: 64 * 1024 * 1024, compactionBytesMin: 2048 };
  const store = new StateStore(file, () => NOW + 1000, limits);
  const ledger = new StoredAuthorizationLedger(store, () => NOW + 1000);
  await store.open();
  const pending: Array<Promise<string>> = [];
  for (let i = 0; i < 60; i++) {
    pending.push(ledger.recordSigned(entry(i + 1), () => `jws.of.${i + 1}`));
    // In waves: a compaction starts between them while the next wave's appends are queued.
    if (i % 4 === 3) await pending[i];
  }
  await Promise.all(pending);
  await store.close();
  const reopened = await openLedger(file);
  assert.equal(reopened.ledger.size, 60);
  for (let n = 1; n <= 60; n++) assert.equal(reopened.ledger.get(`pw_${String(n).padStart(4, '0')}`)?.jws, `jws.of.${n}`);
  await reopened.store.close();
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, rmdirSync, statSync, truncateSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { LatchError } from '../../src/errors/latch-error.js';
import { checkInvariants } from '../../src/sandbox/ledger/invariants.js';
import { replay } from '../../src/sandbox/ledger/ledger.js';
import type { SandboxState } from '../../src/sandbox/ledger/state.js';
import { JournalCorruptError, readFrames } from '../../src/store/journal.js';
import { LedgerHarness } from './harness.js';

/** someHistory commits windows, approved and declined charges and a revocation on one card. */
async function someHistory(h: LedgerHarness, rounds: number): Promise<void> {
  const device = await h.device();
  const card = await h.card(device.accountId, 1_000_00);
  for (let n = 0; n < rounds; n += 1) {
    const window = await h.window(device, { card_id: card, amount: '1.00' });
    if (window instanceof LatchError) throw new Error(`window refused: ${window.code}`);
    assert.equal((await h.charge({ cardId: card, merchant: 'shop.example.com', amount: 1_00, currency: 'USD' })).decision, 'approved');
    assert.equal((await h.charge({ cardId: card, merchant: 'shop.example.com', amount: 1_00, currency: 'USD' })).decision, 'declined');
  }
  const revoked = await h.window(device, { card_id: card, amount: '2.00' });
  if (revoked instanceof LatchError) throw new Error(`window refused: ${revoked.code}`);
  assert.ok(!((await h.revoke(device, revoked.policy_id)) instanceof LatchError));
}

/** journalState replays the journal file from its first record, the reference every start must equal. */
function journalState(h: LedgerHarness): SandboxState {
  return replay(readFrames(readFileSync(h.journalPath), h.journalPath).payloads);
}

/** assertSameState compares two states, including the creation order lists are read in. */
function assertSameState(actual: Readonly<SandboxState>, expected: Readonly<SandboxState>): void {
  assert.deepEqual(actual, expected);
  assert.deepEqual([...actual.transactions.keys()], [...expected.transactions.keys()]);
  assert.deepEqual([...actual.authorizations.keys()], [...expected.authorizations.keys()]);
  assert.deepEqual([...actual.idempotency.keys()], [...expected.idempotency.keys()]);
  assert.deepEqual(checkInvariants(actual), []);
}

/** withSnapshot builds a history, snapshots it, adds `after` more rounds, and hands over. */
async function withSnapshot(after: number, body: (h: LedgerHarness, covered: number) => Promise<void>): Promise<void> {
  const h = await LedgerHarness.create({ snapshots: true });
  try {
    await someHistory(h, 3);
    assert.equal(await h.ledger.writeSnapshot(), true);
    const covered = h.ledger.state.seq;
    if (after > 0) await someHistory(h, after);
    await body(h, covered);
  } finally {
    await h.dispose();
  }
}

test('snapshot: a restart loads it and replays only the records after it, to the same state', async () => {
  await withSnapshot(2, async (h, covered) => {
    const before = structuredClone(h.ledger.state);
    await h.restart();
    assert.equal(h.ledger.start.from, 'snapshot');
    assert.equal(h.ledger.start.snapshotSeq, covered);
    assert.equal(h.ledger.start.replayedRecords, before.seq - covered);
    assertSameState(h.ledger.state, before);
    assertSameState(h.ledger.state, journalState(h));
  });
});

test('snapshot: nothing new to cover writes nothing; a snapshot at the last record replays nothing', async () => {
  await withSnapshot(0, async (h, covered) => {
    assert.equal(await h.ledger.writeSnapshot(), false);
    await h.restart();
    assert.equal(h.ledger.start.from, 'snapshot');
    assert.equal(h.ledger.start.replayedRecords, 0);
    assert.equal(h.ledger.state.seq, covered);
    assert.equal(h.ledger.recordsSinceSnapshot(), 0);
  });
});

test('snapshot: every change acknowledged after it survives a kill (no close)', async () => {
  await withSnapshot(0, async (h) => {
    // Operations keep running while a second snapshot is written; each one answered is durable.
    const device = await h.device();
    const card = await h.card(device.accountId, 10_00);
    const writing = h.ledger.writeSnapshot();
    const charged = await h.charge({ cardId: card, merchant: 'shop.example.com', amount: 1_00, currency: 'USD' });
    assert.equal(await writing, true);
    const acknowledged = structuredClone(h.ledger.state);
    await h.crash();
    assertSameState(h.ledger.state, acknowledged);
    assert.ok(h.ledger.state.transactions.has(charged.transaction.id));
  });
});

test('snapshot: a torn last record after it is dropped, the earlier ones kept', async () => {
  await withSnapshot(1, async (h) => {
    const before = structuredClone(h.ledger.state);
    const sizeBefore = statSync(h.journalPath).size;
    await h.charge({ cardId: [...before.cards.keys()][1] as string, merchant: 'shop.example.com', amount: 1_00, currency: 'USD' });
    truncateSync(h.journalPath, sizeBefore + 9);
    await h.crash();
    assert.equal(h.ledger.start.from, 'snapshot');
    assert.equal(h.ledger.droppedBytes, 9);
    assertSameState(h.ledger.state, before);
    assert.equal(statSync(h.journalPath).size, sizeBefore);
  });
});

test('snapshot: damage after it, before the last record, still refuses to start', async () => {
  await withSnapshot(2, async (h) => {
    await h.ledger.close();
    const bytes = readFileSync(h.journalPath);
    const last = readFrames(bytes, h.journalPath).lastFrame?.offset ?? 0;
    assert.ok(last > 0);
    // Flip a byte in the second-to-last record (after the snapshot): damage followed by an intact record.
    bytes[last - 10] = (bytes[last - 10] as number) ^ 0xff;
    writeFileSync(h.journalPath, bytes);
    await assert.rejects(h.openLedger(), (error: unknown) => error instanceof JournalCorruptError);
  });
});

/** Ways a snapshot file can be unusable; each must fall back to the whole journal, losing nothing. */
const UNUSABLE_SNAPSHOTS: Array<{ name: string; spoil: (h: LedgerHarness) => void }> = [
  { name: 'a flipped byte in its body', spoil: (h) => flipByte(h.snapshotPath, -100) },
  { name: 'a flipped byte in its meta', spoil: (h) => flipByte(h.snapshotPath, readFileSync(h.snapshotPath).indexOf('journal_offset')) },
  { name: 'a flipped byte in its first line', spoil: (h) => flipByte(h.snapshotPath, 10) },
  { name: 'cut short', spoil: (h) => truncateSync(h.snapshotPath, statSync(h.snapshotPath).size - 1) },
  { name: 'empty', spoil: (h) => truncateSync(h.snapshotPath, 0) },
  { name: 'not a snapshot at all', spoil: (h) => writeFileSync(h.snapshotPath, '{"seq": 1}\n') },
];

function flipByte(file: string, at: number): void {
  const bytes = readFileSync(file);
  const index = at < 0 ? bytes.length + at : at;
  bytes[index] = (bytes[index] as number) ^ 0x01;
  writeFileSync(file, bytes);
}

for (const { name, spoil } of UNUSABLE_SNAPSHOTS) {
  test(`snapshot: ${name} is ignored and removed; the whole journal is replayed`, async () => {
    await withSnapshot(1, async (h) => {
      const before = structuredClone(h.ledger.state);
      await h.ledger.close();
      spoil(h);
      h.ledger = await h.openLedger();
      assert.equal(h.ledger.start.from, 'journal');
      assert.equal(typeof h.ledger.start.snapshotIgnored, 'string');
      assert.equal(h.ledger.start.replayedRecords, before.seq);
      assertSameState(h.ledger.state, before);
      assert.equal(existsSync(h.snapshotPath), false);
      // The next snapshot is written afresh and used.
      await someHistory(h, 1);
      assert.equal(await h.ledger.writeSnapshot(), true);
      await h.restart();
      assert.equal(h.ledger.start.from, 'snapshot');
    });
  });
}

/** Ways the journal can stop continuing a good snapshot; the journal wins every time. */
const DISCONTINUED_JOURNALS: Array<{ name: string; change: (h: LedgerHarness, coveredBytes: number) => void }> = [
  { name: 'the journal cut before the covered record (the snapshot is ahead of it)', change: (h, coveredBytes) => truncateSync(h.journalPath, coveredBytes - 50) },
  { name: 'the journal moved aside (a fresh start)', change: (h) => unlinkSync(h.journalPath) },
  { name: 'the journal emptied', change: (h) => truncateSync(h.journalPath, 0) },
  {
    name: 'the journal rewritten with other records past the covered offset',
    change: (h, coveredBytes) => {
      // The same length and more, but the frame at the covered offset is not the covered one.
      const bytes = readFileSync(h.journalPath);
      const frames = readFrames(bytes, h.journalPath);
      writeFileSync(h.journalPath, Buffer.concat([bytes.subarray(0, (frames.lastFrame?.offset ?? 0) - 1), Buffer.alloc(coveredBytes)]));
    },
  },
];

for (const { name, change } of DISCONTINUED_JOURNALS) {
  test(`snapshot: ${name}: the snapshot is ignored and the journal replayed`, async () => {
    await withSnapshot(0, async (h) => {
      await h.ledger.close();
      const coveredBytes = statSync(h.journalPath).size;
      change(h, coveredBytes);
      const expected = existsSync(h.journalPath) ? journalState(h) : replay([]);
      h.ledger = await h.openLedger();
      assert.equal(h.ledger.start.from, 'journal');
      assert.equal(typeof h.ledger.start.snapshotIgnored, 'string');
      assertSameState(h.ledger.state, expected);
    });
  });
}

test('snapshot: damage in the covered part of the journal refuses once the snapshot cannot be used', async () => {
  await withSnapshot(1, async (h) => {
    await h.ledger.close();
    const bytes = readFileSync(h.journalPath);
    bytes[100] = (bytes[100] as number) ^ 0xff;
    writeFileSync(h.journalPath, bytes);
    // With a good snapshot the covered part is not read again, so the start succeeds from it...
    h.ledger = await h.openLedger();
    assert.equal(h.ledger.start.from, 'snapshot');
    await h.ledger.close();
    // ...and without it the damage is found and refused, never replayed past.
    flipByte(h.snapshotPath, -100);
    await assert.rejects(h.openLedger(), (error: unknown) => error instanceof JournalCorruptError);
  });
});

test('snapshot: a temporary left by a crash while writing one is removed, the previous snapshot used', async () => {
  await withSnapshot(1, async (h, covered) => {
    await h.ledger.close();
    const litter = path.join(h.dir, `.${path.basename(h.snapshotPath)}.0123456789abcdef.tmp`);
    writeFileSync(litter, 'LTS1 half', { mode: 0o600 });
    h.ledger = await h.openLedger();
    assert.equal(h.ledger.start.from, 'snapshot');
    assert.equal(h.ledger.start.snapshotSeq, covered);
    assert.equal(existsSync(litter), false);
    assertSameState(h.ledger.state, journalState(h));
  });
});

test('snapshot: a failed write loses nothing, is not scheduled again until more records follow, and may be retried', async () => {
  const h = await LedgerHarness.create({ snapshots: true });
  try {
    await someHistory(h, 2);
    mkdirSync(h.snapshotPath);
    assert.ok(h.ledger.recordsSinceSnapshot() > 0);
    await assert.rejects(h.ledger.writeSnapshot());
    assert.equal(h.ledger.recordsSinceSnapshot(), 0);
    await someHistory(h, 1);
    assert.ok(h.ledger.recordsSinceSnapshot() > 0);
    rmdirSync(h.snapshotPath);
    assert.equal(await h.ledger.writeSnapshot(), true);
    const before = structuredClone(h.ledger.state);
    await h.crash();
    assert.equal(h.ledger.start.from, 'snapshot');
    assertSameState(h.ledger.state, before);
  } finally {
    await h.dispose();
  }
});

/**
 * The journal's daemon-facing features: group commit, size limits, and compaction that replaces
 * the file atomically and survives a crash half way (a temporary left behind).
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { Journal, JournalLimitError } from '../../src/store/journal.js';
import { encodeFrame, FRAME_HEADER_BYTES } from '../../src/store/frame.js';
import { tempJournalPath } from '../support/temp-journal.js';

const text = (value: string) => new TextEncoder().encode(value);

async function reopen(file: string): Promise<string[]> {
  const { journal, contents } = await Journal.open(file);
  await journal.close();
  return contents.payloads.map((payload) => payload.toString('utf8'));
}

test('group commit: appends in flight together share one datasync, in order', async () => {
  const file = tempJournalPath();
  const { journal } = await Journal.open(file);
  let datasyncs = 0;
  const handle = (journal as unknown as { handle: { datasync: () => Promise<void> } }).handle;
  const original = handle.datasync.bind(handle);
  handle.datasync = () => {
    datasyncs += 1;
    return original();
  };
  const records = Array.from({ length: 20 }, (_, i) => `{"n":${i}}`);
  await Promise.all(records.map((record) => journal.append(text(record))));
  await journal.close();
  // The first append starts a write alone; the other 19 wait for it and go in one more.
  assert.equal(datasyncs, 2);
  assert.deepEqual(await reopen(file), records);
});

test('limits: a record or a file beyond its limit is refused, nothing is written, the journal stays usable', async () => {
  const file = tempJournalPath();
  const limits = { recordBytesMax: 16, fileBytesMax: 3 * (FRAME_HEADER_BYTES + 16), compactionBytesMin: 1 };
  const { journal } = await Journal.open(file, { limits });
  const cases: Array<[string, Uint8Array, string]> = [
    ['17 bytes', new Uint8Array(17), 'record_bytes'],
    ['a huge record', new Uint8Array(1024 * 1024), 'record_bytes'],
  ];
  for (const [name, payload, limit] of cases) {
    await assert.rejects(journal.append(payload), (error: unknown) => error instanceof JournalLimitError && error.limit === limit, name);
  }
  assert.equal(statSync(file).size, 0);
  for (let i = 0; i < 3; i++) await journal.append(new Uint8Array(16).fill(65 + i));
  await assert.rejects(journal.append(new Uint8Array(1)), (error: unknown) => error instanceof JournalLimitError && error.limit === 'file_bytes');
  assert.equal(statSync(file).size, limits.fileBytesMax);
  // Compaction makes room again.
  await journal.compact([new Uint8Array(16).fill(66)]);
  await journal.append(new Uint8Array(16).fill(68));
  await journal.close();
  assert.deepEqual(await reopen(file), ['B'.repeat(16), 'D'.repeat(16)]);

  // A file already larger than the limit is refused at open, untouched.
  await assert.rejects(Journal.open(file, { limits: { ...limits, fileBytesMax: 10 } }), (error: unknown) => error instanceof JournalLimitError && error.limit === 'file_bytes');
  assert.equal(statSync(file).size, 2 * (FRAME_HEADER_BYTES + 16));
});

test('compaction: the file holds exactly the live records, appends around it keep their place', async () => {
  const file = tempJournalPath();
  const { journal } = await Journal.open(file);
  for (const record of ['a', 'b', 'c', 'd']) await journal.append(text(record));
  const inFlight = journal.append(text('e'));
  const compacted = journal.compact([text('b'), text('e')]);
  const after = journal.append(text('f'));
  await Promise.all([inFlight, compacted, after]);
  // The journal's own account of where the last record landed (what a snapshot names) is the file's real end.
  assert.equal(journal.lastFrame?.offset, statSync(file).size - encodeFrame(text('f')).byteLength);
  await journal.close();
  assert.deepEqual(await reopen(file), ['b', 'e', 'f']);
  assert.equal(statSync(file).mode & 0o777, 0o600);
  assert.deepEqual(readdirSync(path.dirname(file)), ['state.journal'], 'no temporary is left');
});

test('compactionDue: from the minimum size on, once the file doubled since the last compaction', async () => {
  const file = tempJournalPath();
  const frame = FRAME_HEADER_BYTES + 10;
  const { journal } = await Journal.open(file, { limits: { compactionBytesMin: 3 * frame } });
  const record = new Uint8Array(10);
  await journal.append(record);
  await journal.append(record);
  assert.equal(journal.compactionDue(), false, 'below the minimum');
  await journal.append(record);
  assert.equal(journal.compactionDue(), true);
  await journal.compact([record, record]);
  assert.equal(journal.compactionDue(), false, '2 live records: not due before 4');
  await journal.append(record);
  assert.equal(journal.compactionDue(), false);
  await journal.append(record);
  assert.equal(journal.compactionDue(), true);
  await journal.close();
});

test('compaction interrupted by a crash: a temporary left behind is ignored and removed, the journal is whole', async () => {
  const file = tempJournalPath();
  const dir = path.dirname(file);
  const { journal } = await Journal.open(file);
  for (const record of ['one', 'two']) await journal.append(text(record));
  await journal.close();
  const before = readFileSync(file);
  // What a process killed after writing the temporary and before the rename leaves: a whole new
  // file beside the old one. A torn temporary is no different.
  const leftovers = ['.state.journal.0123456789abcdef.tmp', '.state.journal.fedcba9876543210.tmp'];
  writeFileSync(path.join(dir, leftovers[0] as string), encodeFrame(text('two')), { mode: 0o600 });
  writeFileSync(path.join(dir, leftovers[1] as string), encodeFrame(text('tw')).subarray(0, 7), { mode: 0o600 });
  // A file of someone else's naming is not touched.
  writeFileSync(path.join(dir, '.state.journal.notours.tmp'), 'x');
  assert.deepEqual(await reopen(file), ['one', 'two']);
  assert.deepEqual(readFileSync(file), before);
  assert.deepEqual(readdirSync(dir).sort(), ['.state.journal.notours.tmp', 'state.journal']);
});

// Root writes into a read-only directory anyway, so there is nothing to observe as root.
test('compaction that cannot write its temporary leaves the journal as it was and usable', async () => {
  const file = tempJournalPath();
  const { journal } = await Journal.open(file);
  await journal.append(text('kept'));
  // The journal's folder is moved away and a plain file takes its name, so creating the temporary
  // beside the journal fails (ENOTDIR) for any user, root included; the open journal is untouched.
  const folder = path.dirname(file);
  const movedAway = `${folder}.away`;
  renameSync(folder, movedAway);
  writeFileSync(folder, 'not a folder');
  try {
    await assert.rejects(journal.compact([]), (error: unknown) => (error as NodeJS.ErrnoException).code === 'ENOTDIR');
  } finally {
    unlinkSync(folder);
    renameSync(movedAway, folder);
  }
  await journal.append(text('after'));
  await journal.close();
  assert.deepEqual(await reopen(file), ['kept', 'after']);
});

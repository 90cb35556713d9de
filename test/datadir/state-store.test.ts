/**
 * The daemon's state store: typed JSON records replayed to their owners, compaction to the live
 * ones, and the data directory's refusals (loose mode, symbolic link, another owner, damage).
 */
import assert from 'node:assert/strict';
import { chmodSync, chownSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { test } from 'node:test';
import { DataDirError } from '../../src/datadir/data-dir-error.js';
import { encodeFrame } from '../../src/store/frame.js';
import { StateStore, type StateRecord } from '../../src/datadir/state-store.js';
import { tempJournalPath } from '../support/temp-journal.js';

/** A state machine that keeps notes whose `until` is still ahead (applied: every note it was given). */
function notes(store: StateStore): { replayed: StateRecord[]; kept: StateRecord[] } {
  const owner = { replayed: [] as StateRecord[], kept: [] as StateRecord[] };
  store.register({
    recordTypes: ['note'],
    apply: (record, now) => {
      if (typeof record['until'] !== 'number') throw new Error('no until');
      owner.replayed.push(record);
      if (record['until'] > now) owner.kept.push(record);
      return () => {
        owner.replayed.pop();
        owner.kept = owner.kept.filter((kept) => kept !== record);
      };
    },
    live: (now) => owner.kept.filter((record) => (record['until'] as number) > now),
  });
  return owner;
}

async function appendNotes(file: string, records: StateRecord[], now = 100): Promise<void> {
  const store = new StateStore(file, () => now);
  const owner = notes(store);
  await store.open();
  for (const record of records) await store.commit(record);
  assert.deepEqual(owner.replayed, records, 'commit applies each record');
  await store.close();
}

test('records come back to their owner in order; the file is created 0600', async () => {
  const file = tempJournalPath();
  const records = [
    { type: 'note', id: 1, until: 500 },
    { type: 'note', id: 2, until: 600, text: 'ünïcode' },
  ];
  await appendNotes(file, records);
  assert.equal(statSync(file).mode & 0o777, 0o600);
  const store = new StateStore(file, () => 100);
  const owner = notes(store);
  await store.open();
  await store.close();
  assert.deepEqual(owner.replayed, records);
});

test('at open, records no longer live are compacted away', async () => {
  const file = tempJournalPath();
  await appendNotes(file, [
    { type: 'note', id: 1, until: 150 },
    { type: 'note', id: 2, until: 300 },
  ]);
  const sizeBefore = statSync(file).size;
  const later = new StateStore(file, () => 200);
  notes(later);
  await later.open();
  await later.close();
  assert.ok(statSync(file).size < sizeBefore);
  const again = new StateStore(file, () => 200);
  const owner = notes(again);
  await again.open();
  await again.close();
  assert.deepEqual(owner.replayed, [{ type: 'note', id: 2, until: 300 }]);
});

test('appends past the compaction size compact to the live records', async () => {
  const file = tempJournalPath();
  const limits = { recordBytesMax: 1024, fileBytesMax: 64 * 1024, compactionBytesMin: 2048 };
  const store = new StateStore(file, () => 100, limits);
  const owner = notes(store);
  await store.open();
  for (let i = 0; i < 200; i++) {
    const record = { type: 'note', id: i, until: 101 };
    await store.commit(record);
    // Only the last five are live.
    owner.kept = owner.kept.slice(-5);
  }
  await store.close();
  assert.ok(statSync(file).size < 2 * 2048 + 200, `compacted: ${statSync(file).size} bytes`);
  const reopened = new StateStore(file, () => 100, limits);
  const replayed = notes(reopened);
  await reopened.open();
  await reopened.close();
  assert.ok(replayed.replayed.length >= 5 && replayed.replayed.length < 200);
  assert.deepEqual(replayed.replayed.slice(-5).map((record) => record['id']), [195, 196, 197, 198, 199]);
});

const refusals: Array<[string, (file: string) => void, string, RegExp]> = [
  ['mode 0644', (file) => chmodSync(file, 0o644), 'insecure_permissions', /chmod 600 /],
  ['mode 0604', (file) => chmodSync(file, 0o604), 'insecure_permissions', /chmod 600 /],
  [
    'a symbolic link',
    (file) => {
      rmSync(file);
      writeFileSync(`${file}.target`, '', { mode: 0o600 });
      symlinkSync(`${file}.target`, file);
    },
    'symlink',
    /rm /,
  ],
  ['another owner', (file) => chownSync(file, 4242, 4242), 'wrong_owner', /chown /],
  ['damage before the last record', (file) => writeFileSync(file, Buffer.concat([Buffer.from('XXXX'), encodeFrame(Buffer.from('{"type":"note","until":1}'))])), 'corrupt', /mv .*state\.journal\.damaged/],
  ['a record that is not JSON', (file) => writeFileSync(file, encodeFrame(Buffer.from('not json'))), 'corrupt', /mv /],
  ['a record of an unknown type', (file) => writeFileSync(file, encodeFrame(Buffer.from('{"type":"approval"}'))), 'corrupt', /mv /],
  ['a malformed record', (file) => writeFileSync(file, encodeFrame(Buffer.from('{"type":"note"}'))), 'corrupt', /mv /],
];

for (const [name, spoil, code, fix] of refusals) {
  test(`open refuses ${name} with ${code}, naming the file and the fix, and leaves it alone`, { skip: name === 'another owner' && process.getuid?.() !== 0 }, async () => {
    const file = tempJournalPath();
    await appendNotes(file, [{ type: 'note', id: 1, until: 500 }]);
    spoil(file);
    const before = readFileSync(file);
    const store = new StateStore(file, () => 100);
    notes(store);
    await assert.rejects(store.open(), (error: unknown) => error instanceof DataDirError && error.code === code && error.file === file && fix.test(error.fix) && error.message.includes(file));
    assert.deepEqual(readFileSync(file), before);
    await assert.rejects(store.commit({ type: 'note', until: 1 }), (error: unknown) => error instanceof DataDirError && error.code === 'write_failed');
  });
}

test('a record beyond the size limit is refused as too_large and the store stays usable', async () => {
  const file = tempJournalPath();
  const store = new StateStore(file, () => 100, { recordBytesMax: 100, fileBytesMax: 10_000, compactionBytesMin: 5_000 });
  const owner = notes(store);
  await store.open();
  await assert.rejects(store.commit({ type: 'note', until: 200, text: 'x'.repeat(100) }), (error: unknown) => error instanceof DataDirError && error.code === 'too_large');
  assert.deepEqual(owner.kept, [], 'the refused record was undone');
  await store.commit({ type: 'note', until: 200 });
  assert.equal(owner.kept.length, 1);
  await store.close();
});

test('register is refused after open, twice for one type, or for a bad name', async () => {
  const store = new StateStore(tempJournalPath());
  const machine = (type: string) => ({ recordTypes: [type], apply: () => () => undefined, live: () => [] });
  store.register(machine('note'));
  for (const type of ['note', 'Bad-Name', '']) assert.throws(() => store.register(machine(type)), type);
  await store.open();
  assert.throws(() => store.register(machine('other')));
  await store.close();
});

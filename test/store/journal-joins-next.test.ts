/**
 * A record appended with `joinsNext` (the audit anchor's, docs/decisions.md §41) waits for another
 * record's write and shares its datasync, or is written by its own within JOURNAL_JOIN_NEXT_MS,
 * or at close; it is never acknowledged before it is on disk. Datasyncs are counted, not timed.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Journal } from '../../src/store/journal.js';
import { tempJournalPath } from '../support/temp-journal.js';

const text = (value: string) => new TextEncoder().encode(value);

/** counted opens a journal whose datasyncs are counted. */
async function counted(file: string): Promise<{ journal: Journal; datasyncs: () => number }> {
  const { journal } = await Journal.open(file);
  const handle = (journal as unknown as { handle: { datasync: () => Promise<void> } }).handle;
  const original = handle.datasync.bind(handle);
  let datasyncs = 0;
  handle.datasync = () => {
    datasyncs += 1;
    return original();
  };
  return { journal, datasyncs: () => datasyncs };
}

async function replayed(file: string): Promise<string[]> {
  const { journal, contents } = await Journal.open(file);
  await journal.close();
  return contents.payloads.map((payload) => Buffer.from(payload).toString('utf8'));
}

test('a record that joins the next write shares its datasync, written first, and is acknowledged only with it', async () => {
  const file = tempJournalPath();
  const { journal, datasyncs } = await counted(file);
  let anchorDurable = false;
  const anchor = journal.append(text('anchor'), { joinsNext: true }).then(() => (anchorDurable = true));
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(datasyncs(), 0, 'nothing is written for it alone');
  assert.equal(anchorDurable, false);
  await journal.append(text('ledger'));
  await anchor;
  assert.equal(datasyncs(), 1, 'one datasync for both');
  await journal.close();
  assert.deepEqual(await replayed(file), ['anchor', 'ledger'], 'in the order appended');
});

test('with nothing else to join, it is written by its own datasync within its bound, and at close', async () => {
  const file = tempJournalPath();
  const { journal, datasyncs } = await counted(file);
  await journal.append(text('alone'), { joinsNext: true });
  assert.equal(datasyncs(), 1, 'its timer wrote it');
  const last = journal.append(text('at close'), { joinsNext: true });
  await journal.close();
  await last;
  assert.equal(datasyncs(), 2, 'close wrote the last one');
  assert.deepEqual(await replayed(file), ['alone', 'at close']);
});

test('a compaction queued behind it writes it first; synced() waits for it', async () => {
  const file = tempJournalPath();
  const { journal } = await counted(file);
  const joined = journal.append(text('joined'), { joinsNext: true });
  await journal.synced();
  await joined;
  const second = journal.append(text('before compaction'), { joinsNext: true });
  await journal.compact([text('live')]);
  await second;
  await journal.close();
  assert.deepEqual(await replayed(file), ['live']);
});

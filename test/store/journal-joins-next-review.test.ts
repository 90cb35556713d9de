/**
 * Review of §41.6 (docs/decisions.md §45): a record appended with `joinsNext` behind a compaction
 * still has a bound. Nothing here is timed: each wait has a deadline only so that a record left
 * waiting fails the test instead of hanging it (the daemon's stop awaits the anchor's record).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Journal, JOURNAL_JOIN_NEXT_MS } from '../../src/store/journal.js';
import { tempJournalPath } from '../support/temp-journal.js';

const text = (value: string) => new TextEncoder().encode(value);

/** withinDeadline resolves with promise, or rejects naming what never came. */
function withinDeadline<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`waited ${50 * JOURNAL_JOIN_NEXT_MS} ms for ${what}`)), 50 * JOURNAL_JOIN_NEXT_MS);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

test('a record that joins the next write, queued behind a compaction with nothing after it, is still written by its own timer', async () => {
  const file = tempJournalPath();
  const { journal } = await Journal.open(file);
  // A ledger record on its way to the disk, a compaction queued behind it (the state store queues
  // one when the file has grown), then the audit anchor's record: the compaction is a barrier,
  // so the anchor's record is left alone in the queue once both are done.
  const ledger = journal.append(text('ledger'));
  const compaction = journal.compact([text('live')]);
  const anchor = journal.append(text('anchor'), { joinsNext: true });
  await ledger;
  await compaction;
  await withinDeadline(anchor, 'the anchor record, alone behind the compaction, to be written');
  await journal.close();
  const { journal: reopened, contents } = await Journal.open(file);
  await reopened.close();
  assert.deepEqual(contents.payloads.map((payload) => Buffer.from(payload).toString('utf8')), ['live', 'anchor']);
});

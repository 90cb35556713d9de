/**
 * The state journal's group commit under a failing disk (docs/decisions.md §26.2): a failed
 * datasync fails every waiter of its batch and every record after it, so nothing is acknowledged
 * that may not be on disk, and what a restart replays is whole records in the order appended.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Journal } from '../../src/store/journal.js';
import { tempJournalPath } from '../support/temp-journal.js';

const text = (value: string) => new TextEncoder().encode(value);

function settle(promise: Promise<void>): Promise<'ok' | unknown> {
  return promise.then(
    () => 'ok',
    (error: unknown) => error,
  );
}

async function waitUntil(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!condition()) {
    if (Date.now() > deadline) assert.fail(`waited 10 s for ${what}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

test('a failed datasync fails its whole batch and everything after it; a restart replays a prefix of whole records', async () => {
  const file = tempJournalPath();
  const { journal } = await Journal.open(file);
  const handle = (journal as unknown as { handle: { datasync: () => Promise<void> } }).handle;
  const original = handle.datasync.bind(handle);
  let datasyncs = 0;
  let releaseFirst = () => {};
  let releaseSecond = () => {};
  const firstHeld = new Promise<void>((resolve) => (releaseFirst = resolve));
  const secondHeld = new Promise<void>((resolve) => (releaseSecond = resolve));
  const failure = Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' });
  handle.datasync = async () => {
    datasyncs += 1;
    if (datasyncs === 1) {
      await firstHeld;
      return original();
    }
    await secondHeld;
    throw failure;
  };

  const first = settle(journal.append(text('r1')));
  await waitUntil(() => datasyncs >= 1, 'the first datasync');
  // Three records arrive during the first datasync: they are the next batch, with one datasync.
  const batch = ['r2', 'r3', 'r4'].map((record) => settle(journal.append(text(record))));
  releaseFirst();
  assert.equal(await first, 'ok');
  await waitUntil(() => datasyncs >= 2, 'the second datasync');
  const during = settle(journal.append(text('r5')));
  releaseSecond();
  const outcomes = [...(await Promise.all(batch)), await during, await settle(journal.append(text('r6')))];
  for (const [index, outcome] of outcomes.entries()) assert.equal(outcome, failure, `record ${index + 2} must not be acknowledged`);
  assert.equal(datasyncs, 2, 'one datasync for the batch of three, none after the failure');
  await assert.rejects(journal.synced(), (error: unknown) => error === failure);
  await journal.close().catch(() => undefined);

  // What a restart reads: the acknowledged record first, then at most the failed batch's records
  // (the kernel may have kept them), whole and in order; never r5 or r6.
  const { journal: reopened, contents } = await Journal.open(file);
  await reopened.close();
  const replayed = contents.payloads.map((payload) => payload.toString('utf8'));
  assert.equal(replayed[0], 'r1');
  assert.deepEqual(replayed, ['r1', 'r2', 'r3', 'r4'].slice(0, replayed.length));
});

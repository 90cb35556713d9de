/**
 * Review of §41.6 (docs/decisions.md §45): the daemon's stop awaits the audit anchor's last write
 * (auditAnchor.flush) before it closes state.journal. That write rides on the next ledger record
 * (joinsNext); when it lands behind a compaction, with no ledger record after it, it must still be
 * written within its bound, or the stop never gets to close the store. Nothing is timed: the wait
 * has a deadline only so that a write left waiting fails the test instead of hanging it.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { auditAnchorKeeper } from '../../src/daemon/audit-anchor-keeper.js';
import { StateStore } from '../../src/datadir/state-store.js';
import { JOURNAL_JOIN_NEXT_MS } from '../../src/store/journal.js';
import { tempHome } from '../datadir/temp-home.js';

test("the anchor's flush at the stop completes when its record was queued behind a compaction", async () => {
  const home = tempHome();
  // Compacts after every record (the daemon's compacts once state.journal has grown by 4 MiB).
  const store = new StateStore(path.join(home, 'state.journal'), undefined, { recordBytesMax: 64 * 1024, fileBytesMax: 512 * 1024 * 1024, compactionBytesMin: 1 });
  store.register({ recordTypes: ['review_ledger'], apply: () => () => undefined, live: () => [] });
  const warnings: string[] = [];
  const anchor = auditAnchorKeeper(home, store, (event) => warnings.push(event));
  await store.open();
  // Two requests' ledger records: the first's commit queues a compaction once it is durable,
  // while the second is on its way to the disk; then an audit line is noted, as the recorder does.
  const first = store.commit({ type: 'review_ledger', n: 1 });
  const second = store.commit({ type: 'review_ledger', n: 2 });
  await first;
  anchor.note({ seq: 1, hash: 'a'.repeat(64) });
  await second;
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<string>((resolve) => (timer = setTimeout(() => resolve('still waiting'), 50 * JOURNAL_JOIN_NEXT_MS)));
  const flushed = await Promise.race([anchor.flush().then(() => 'flushed'), deadline]).finally(() => clearTimeout(timer));
  assert.equal(flushed, 'flushed', `the stop's anchor flush did not complete within ${50 * JOURNAL_JOIN_NEXT_MS} ms`);
  await store.close();
  assert.deepEqual(warnings, []);
});

/**
 * Review of §41 (docs/decisions.md §45): what the daemon's stop relies on the audit writer's idle()
 * for, at the writer's bounds.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AuditEntry } from '../../src/datadir/audit-entry.js';
import { AUDIT_BATCH_ENTRIES_MAX, AUDIT_LOCK_HOLD_COMMITS_MAX, createAuditWriter } from '../../src/datadir/audit-writer.js';
import { readAuditHead } from '../../src/verify/audit-read.js';
import { verifyAudit } from '../../src/verify/audit-verify.js';
import { tempHome } from './temp-home.js';

const NOW = new Date('2025-03-04T05:06:07.000Z');

function signLine(n: number): AuditEntry {
  return { operation: 'authorize', policy_id: `pw_${n}`, key_id: 'kid', request_id: `req_${n}`, user_agent: 'agent/1.0', method: 'POST', path: '/v1/authorizations' };
}

test('idle() settles audit.head on the last line even when what is queued takes more than one burst', async () => {
  const home = tempHome();
  const writer = createAuditWriter(home);
  writer.holdReservation(60_000);
  // More lines than one taking of audit.lock writes (AUDIT_LOCK_HOLD_COMMITS_MAX commits of
  // AUDIT_BATCH_ENTRIES_MAX lines), all queued before the daemon's stop calls idle().
  const lines = AUDIT_LOCK_HOLD_COMMITS_MAX * AUDIT_BATCH_ENTRIES_MAX + 10;
  const appended = Array.from({ length: lines }, (_, index) => writer.append(signLine(index + 1), NOW));
  await writer.idle();
  await Promise.all(appended);
  const head = readAuditHead(home);
  assert.deepEqual([head?.seq, head?.pending], [lines, undefined], 'idle() resolved with audit.head settled on the last line');
  assert.deepEqual(verifyAudit(home), { ok: true, lines });
});

test('a deferred line queued while a commit is on its way to the disk is written once its bound passes, not its bound after that burst ends', async () => {
  const home = tempHome();
  let bursts = 0;
  let release: () => void = () => undefined;
  const blocked = new Promise<void>((resolve) => (release = resolve));
  let syncs = 0;
  const deferMs = 5;
  const writer = createAuditWriter(home, {
    deferMs,
    onBurst: () => (bursts += 1),
    // The first commit's fdatasync waits until the deferred line's bound has passed.
    sync: async () => {
      syncs += 1;
      if (syncs === 1) await blocked;
    },
  });
  writer.holdReservation(60_000);
  const first = writer.append(signLine(1), NOW);
  const deferred = writer.appendDeferred({ operation: 'authorization_outcome', policy_id: 'pw_1', outcome: 'registered', code: null, agent: 'owner' }, NOW);
  let burstsWhenWritten = -1;
  const written = deferred.then(() => (burstsWhenWritten = bursts));
  await new Promise((resolve) => setTimeout(resolve, 4 * deferMs));
  release();
  await first;
  await written;
  assert.equal(burstsWhenWritten, 1, 'the burst under way wrote the deferred line, its bound having passed during it');
  await writer.idle();
  assert.deepEqual(verifyAudit(home), { ok: true, lines: 2 });
});

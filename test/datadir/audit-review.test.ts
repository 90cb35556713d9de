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

/**
 * The history generator of `npm run bench -- --history`: an audit.log of many chained lines, as
 * the daemon would have written them over years, built directly (no daemon, no fsync per line)
 * and bounded in lines, bytes and time.
 */
import { closeSync, openSync, writeFileSync, writeSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { auditFields, type AuditEntry } from '../src/datadir/audit-entry.js';
import { chainRecords, serializeFields } from '../src/datadir/audit-log.js';
import { GENESIS_HASH } from '../src/datadir/audit-lines.js';

/** The most lines, bytes and seconds one history may take. */
export const HISTORY_LINES_MAX = 1_000_000;
export const HISTORY_BYTES_MAX = 1024 * 1024 * 1024;
export const HISTORY_BUILD_MS_MAX = 300_000;
/** Lines chained and written per write call. */
const LINES_PER_WRITE = 10_000;

/** One line like the daemon's record of a signed policy window. */
function windowEntry(n: number): AuditEntry {
  return {
    operation: 'sign_card_policy_window',
    policy_id: `pw_${n.toString(36).padStart(24, '0')}`,
    card_id: 'card_bench000000000000000001',
    merchant: 'shop.example.com',
    amount: '1.00',
    currency: 'USD',
    key_id: 'NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs',
    request_id: `req_${n.toString(36).padStart(24, '0')}`,
    user_agent: 'latch-bench/1',
  };
}

/**
 * buildAuditHistory writes `lines` chained lines to home's audit.log, in place of what a cloned
 * home's log held, and a head naming the last.
 */
export function buildAuditHistory(home: string, lines: number): { bytes: number; buildMs: number } {
  if (!Number.isSafeInteger(lines) || lines < 1 || lines > HISTORY_LINES_MAX) throw new RangeError(`history: 1..${HISTORY_LINES_MAX} lines`);
  const startMs = performance.now();
  const fd = openSync(path.join(home, 'audit.log'), 'w', 0o600);
  let tail = { seq: 0, hash: GENESIS_HASH, prev: undefined as string | undefined };
  let bytes = 0;
  const time = new Date('2024-01-01T00:00:00Z');
  try {
    while (tail.seq < lines) {
      const count = Math.min(LINES_PER_WRITE, lines - tail.seq);
      const chained = chainRecords(tail, Array.from({ length: count }, (_, index) => serializeFields(auditFields(windowEntry(tail.seq + index + 1), time))));
      writeSync(fd, chained.bytes);
      bytes += chained.bytes.length;
      const last = chained.results[chained.results.length - 1];
      if (last === undefined) throw new Error('history: no line chained');
      tail = { seq: last.record.seq, hash: last.hash, prev: undefined };
      if (bytes > HISTORY_BYTES_MAX) throw new Error(`history: more than ${HISTORY_BYTES_MAX} bytes`);
      if (performance.now() - startMs > HISTORY_BUILD_MS_MAX) throw new Error(`history: not built within ${HISTORY_BUILD_MS_MAX} ms`);
    }
  } finally {
    closeSync(fd);
  }
  writeFileSync(path.join(home, 'audit.head'), `${JSON.stringify({ seq: tail.seq, hash: tail.hash })}\n`, { mode: 0o600, flag: 'w' });
  return { bytes, buildMs: performance.now() - startMs };
}

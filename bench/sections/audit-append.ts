/**
 * Section 6, the audit log on its own, in this process: entries per second appended by the
 * synchronous appendAudit the daemon uses today (one write, fsync and atomic head replacement per
 * entry) against an AuditWriter's group commit with 1, 8 and 64 callers appending concurrently,
 * on the same filesystem. This is the evidence for moving the daemon to the writer.
 */
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { AuditEntry } from '../../src/datadir/audit-entry.js';
import { appendAudit } from '../../src/datadir/audit-log.js';
import { createAuditWriter } from '../../src/datadir/audit-writer.js';
import { ensureHome } from '../../src/datadir/home.js';
import { figure, type Figure } from '../figures.js';
import type { RunShape } from '../rounds.js';
import { median, percentile } from '../stats.js';

export const WRITER_CALLERS = [1, 8, 64] as const;

/** An entry like the daemon's for one upstream request signature. */
function signatureEntry(n: number): AuditEntry {
  return { operation: 'sign_request', key_id: 'NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs', request_id: `req_${n}`, user_agent: 'latch-bench/1', method: 'POST', path: '/v1/authorizations' };
}

interface AppendRound {
  perSecond: number;
  p99Ms: number;
}

function syncRound(home: string, roundMs: number): AppendRound {
  const latencies: number[] = [];
  const startMs = performance.now();
  while (performance.now() - startMs < roundMs) {
    const beforeMs = performance.now();
    appendAudit(home, signatureEntry(latencies.length));
    latencies.push(performance.now() - beforeMs);
  }
  return { perSecond: (latencies.length * 1000) / (performance.now() - startMs), p99Ms: percentile(latencies, 99) };
}

async function writerRound(home: string, roundMs: number, callers: number): Promise<AppendRound & { perCommit: number }> {
  let commits = 0;
  const writer = createAuditWriter(home, { onCommit: () => (commits += 1) });
  const latencies: number[] = [];
  const startMs = performance.now();
  const caller = async () => {
    while (performance.now() - startMs < roundMs) {
      const beforeMs = performance.now();
      await writer.append(signatureEntry(latencies.length));
      latencies.push(performance.now() - beforeMs);
    }
  };
  await Promise.all(Array.from({ length: callers }, caller));
  const perSecond = (latencies.length * 1000) / (performance.now() - startMs);
  // The next round's writer, or the synchronous append, may commit only once this one has let go.
  await writer.idle();
  return { perSecond, p99Ms: percentile(latencies, 99), perCommit: latencies.length / Math.max(1, commits) };
}

/** measureAuditAppend returns one row per writer concurrency, each against the synchronous append. */
export async function measureAuditAppend(shape: RunShape, scratchDir: string): Promise<Figure[]> {
  const home = path.join(scratchDir, 'audit-bench');
  ensureHome(home);
  const roundMs = shape.roundMs / 2;
  const sync: AppendRound[] = [];
  const writers: Record<number, Array<AppendRound & { perCommit: number }>> = {};
  for (let round = 0; round < shape.rounds; round += 1) {
    sync.push(syncRound(home, roundMs));
    for (const callers of WRITER_CALLERS) (writers[callers] ??= []).push(await writerRound(home, roundMs, callers));
  }
  const syncRate = median(sync.map((round) => round.perSecond));
  return WRITER_CALLERS.map((callers) => {
    const rounds = writers[callers] ?? [];
    return figure({
      section: 6,
      name: `Audit appends, AuditWriter, ${callers} concurrent caller${callers === 1 ? '' : 's'}`,
      unit: 'ops/s',
      value: median(rounds.map((round) => round.perSecond)),
      baseline: syncRate,
      baselineName: 'appendAudit (sync, per entry), one caller',
      note: `p99 ${median(rounds.map((round) => round.p99Ms)).toFixed(2)} ms per append (sync: ${median(sync.map((round) => round.p99Ms)).toFixed(2)} ms); ${median(rounds.map((round) => round.perCommit)).toFixed(1)} entries per commit`,
    });
  });
}

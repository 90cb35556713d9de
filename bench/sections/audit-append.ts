/**
 * Section 6, the audit log on its own, in this process: entries per second appended through an
 * AuditWriter (the only appender there is) by 1, 8 and 64 callers appending concurrently, on the
 * same filesystem. The baseline is the writer with one caller awaiting each append in turn (the
 * 1-caller row's own rounds, so that row reads 1.00x): what group commit gains when callers
 * overlap. Until issue 35 the baseline was the synchronous appendAudit (one write, fsync and head
 * replacement per entry), which no production code used and which was removed.
 */
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { AuditEntry } from '../../src/datadir/audit-entry.js';
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
  // The next round's writer may commit only once this one has let go.
  await writer.idle();
  return { perSecond, p99Ms: percentile(latencies, 99), perCommit: latencies.length / Math.max(1, commits) };
}

/** measureAuditAppend returns one row per writer concurrency, each against one caller appending in turn. */
export async function measureAuditAppend(shape: RunShape, scratchDir: string): Promise<Figure[]> {
  const home = path.join(scratchDir, 'audit-bench');
  ensureHome(home);
  const roundMs = shape.roundMs / 2;
  const writers: Record<number, Array<AppendRound & { perCommit: number }>> = {};
  for (let round = 0; round < shape.rounds; round += 1) {
    for (const callers of WRITER_CALLERS) (writers[callers] ??= []).push(await writerRound(home, roundMs, callers));
  }
  const sequential = writers[1] ?? [];
  const sequentialRate = median(sequential.map((round) => round.perSecond));
  return WRITER_CALLERS.map((callers) => {
    const rounds = writers[callers] ?? [];
    return figure({
      section: 6,
      name: `Audit appends, AuditWriter, ${callers} concurrent caller${callers === 1 ? '' : 's'}`,
      unit: 'ops/s',
      value: median(rounds.map((round) => round.perSecond)),
      baseline: sequentialRate,
      baselineName: 'AuditWriter, one caller awaiting each append in turn',
      note: `p99 ${median(rounds.map((round) => round.p99Ms)).toFixed(2)} ms per append (one caller: ${median(sequential.map((round) => round.p99Ms)).toFixed(2)} ms); ${median(rounds.map((round) => round.perCommit)).toFixed(1)} entries per commit`,
    });
  });
}

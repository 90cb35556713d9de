/**
 * Section 6, the state journal on its own, in this process: records per second appended through
 * the daemon's Journal (src/store/journal.ts: group commit, one datasync for every record that
 * arrived while the last one ran) with 1, 8 and 64 concurrent callers, against a `write` +
 * `fdatasync` of the same frame per record, back to back, in the same directory: what a journal
 * that synced once per record could do at best (docs/decisions.md §26).
 */
import { closeSync, fdatasyncSync, openSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { encodeFrame } from '../../src/store/frame.js';
import { Journal } from '../../src/store/journal.js';
import { figure, type Figure } from '../figures.js';
import type { RunShape } from '../rounds.js';
import { median, percentile } from '../stats.js';

export const JOURNAL_CALLERS = [1, 8, 64] as const;

/** A record like the daemon's ledger entry for one authorization (about 400 bytes). */
function ledgerRecord(n: number): Buffer {
  const record = {
    type: 'authorization',
    policy_id: `pw_${String(n).padStart(24, '0')}`,
    agent: 'bench-agent',
    card_id: 'card_000000000000000000000000',
    merchant: 'bench.example.com',
    amount_minor: 1,
    currency: 'USD',
    signed_at: 1_700_000_000 + n,
    not_after: 1_700_000_060 + n,
    state: 'pending',
    used_minor: 0,
    reference: 'bench reference text of a typical length',
  };
  return Buffer.from(JSON.stringify(record), 'utf8');
}

interface AppendRound {
  perSecond: number;
  p99Ms: number;
}

function serialRound(file: string, roundMs: number): AppendRound {
  const fd = openSync(file, 'a', 0o600);
  const latencies: number[] = [];
  const startMs = performance.now();
  try {
    while (performance.now() - startMs < roundMs) {
      const beforeMs = performance.now();
      writeSync(fd, encodeFrame(ledgerRecord(latencies.length)));
      fdatasyncSync(fd);
      latencies.push(performance.now() - beforeMs);
    }
  } finally {
    closeSync(fd);
  }
  return { perSecond: (latencies.length * 1000) / (performance.now() - startMs), p99Ms: percentile(latencies, 99) };
}

async function journalRound(file: string, roundMs: number, callers: number): Promise<AppendRound & { perSync: number }> {
  rmSync(file, { force: true });
  const { journal } = await Journal.open(file);
  const handle = (journal as unknown as { handle: { datasync: () => Promise<void> } }).handle;
  const datasync = handle.datasync.bind(handle);
  let syncs = 0;
  // Counted for the note only: how many records one datasync covered.
  handle.datasync = () => {
    syncs += 1;
    return datasync();
  };
  const latencies: number[] = [];
  const startMs = performance.now();
  const caller = async () => {
    while (performance.now() - startMs < roundMs) {
      const beforeMs = performance.now();
      await journal.append(ledgerRecord(latencies.length));
      latencies.push(performance.now() - beforeMs);
    }
  };
  await Promise.all(Array.from({ length: callers }, caller));
  const perSecond = (latencies.length * 1000) / (performance.now() - startMs);
  await journal.close();
  return { perSecond, p99Ms: percentile(latencies, 99), perSync: latencies.length / Math.max(1, syncs) };
}

/** measureJournalAppend returns one row per concurrency, each against the serial write + fdatasync. */
export async function measureJournalAppend(shape: RunShape, scratchDir: string): Promise<Figure[]> {
  const file = path.join(scratchDir, 'journal-bench.journal');
  const serialFile = path.join(scratchDir, 'journal-bench.serial');
  const roundMs = shape.roundMs / 2;
  const serial: AppendRound[] = [];
  const journals: Record<number, Array<AppendRound & { perSync: number }>> = {};
  try {
    for (let round = 0; round < shape.rounds; round += 1) {
      serial.push(serialRound(serialFile, roundMs));
      for (const callers of JOURNAL_CALLERS) (journals[callers] ??= []).push(await journalRound(file, roundMs, callers));
    }
  } finally {
    rmSync(file, { force: true });
    rmSync(serialFile, { force: true });
  }
  const serialRate = median(serial.map((round) => round.perSecond));
  return JOURNAL_CALLERS.map((callers) => {
    const rounds = journals[callers] ?? [];
    return figure({
      section: 6,
      name: `state.journal appends, Journal, ${callers} concurrent caller${callers === 1 ? '' : 's'}`,
      unit: 'ops/s',
      value: median(rounds.map((round) => round.perSecond)),
      baseline: serialRate,
      baselineName: 'write + fdatasync per record, one caller',
      note: `p99 ${median(rounds.map((round) => round.p99Ms)).toFixed(2)} ms per append (serial: ${median(serial.map((round) => round.p99Ms)).toFixed(2)} ms); ${median(rounds.map((round) => round.perSync)).toFixed(1)} records per datasync`,
    });
  });
}

/**
 * Section 4, sandbox charge decisions: concurrent `POST /v1/sandbox/charges` (the card network's
 * incoming charge) for the benchmark merchant and amount, which the sandbox decides one at a
 * time and journals with one fdatasync each before answering. The baseline is that floor
 * itself: the same directory's write + fdatasync of a record, back to back, in the same run. A
 * ratio near 1 means decisions are bound by the disk; well below 1, by the decision's own work.
 */
import { closeSync, fdatasyncSync, openSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { figure, type Figure } from '../figures.js';
import { chargeRequest, roundRobin } from '../requests.js';
import { measureAlternating, type RunShape } from '../rounds.js';
import { median, percentile } from '../stats.js';

export const CHARGE_CLIENTS = 16;
/** About the size of one journal record of a charge decision. */
const RECORD_BYTES = 700;

export interface ChargeTargets {
  sandboxPort: number;
  adminKey: string;
  cardIds: string[];
  /** A directory on the sandbox's filesystem for the fdatasync baseline. */
  scratchDir: string;
  /** What state the ledger is in, for the row names ("empty ledger", "after 4000 authorizations"). */
  ledger: string;
}

/** measureDatasync returns the median over rounds of fdatasync'd appends per second, and their p99. */
export function measureDatasync(shape: RunShape, dir: string): { perSecond: number; p99Ms: number } {
  const file = path.join(dir, 'datasync-baseline');
  const fd = openSync(file, 'a', 0o600);
  const record = Buffer.alloc(RECORD_BYTES, 0x61);
  const rates: number[] = [];
  const p99s: number[] = [];
  try {
    for (let round = 0; round < shape.rounds; round += 1) {
      const latencies: number[] = [];
      const startMs = performance.now();
      while (performance.now() - startMs < shape.roundMs / 2) {
        const beforeMs = performance.now();
        writeSync(fd, record);
        fdatasyncSync(fd);
        latencies.push(performance.now() - beforeMs);
      }
      rates.push((latencies.length * 1000) / (performance.now() - startMs));
      p99s.push(percentile(latencies, 99));
    }
  } finally {
    closeSync(fd);
    rmSync(file, { force: true });
  }
  return { perSecond: median(rates), p99Ms: median(p99s) };
}

/** measureCharges returns decisions/s and p99 decision latency for the ledger's current state. */
export async function measureCharges(shape: RunShape, targets: ChargeTargets): Promise<Figure[]> {
  const floor = measureDatasync(shape, targets.scratchDir);
  const card = roundRobin(targets.cardIds);
  const outcomes = new Map<string, number>();
  const count = (text: string) => {
    const answer = JSON.parse(text) as { decision?: string; decline_code?: string };
    const outcome = answer.decision === 'approved' ? 'approved' : `declined ${answer.decline_code ?? '?'}`;
    outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
  };
  const result = await measureAlternating(shape, {
    charges: { port: targets.sandboxPort, concurrency: CHARGE_CLIENTS, expectStatus: 200, request: () => chargeRequest(targets.adminKey, card()), inspect: count },
  });
  const charges = result['charges'];
  if (charges === undefined) throw new Error('charges: missing result');
  const mix = [...outcomes].map(([outcome, n]) => `${n} ${outcome}`).join(', ');
  const baselineName = 'write + fdatasync of a 700-byte record, serial';
  return [
    figure({ section: 4, name: `Sandbox charges, ${CHARGE_CLIENTS} clients, ${targets.ledger}: decisions/s`, unit: 'req/s', value: charges.requestsPerSecond, baseline: floor.perSecond, baselineName, note: mix }),
    figure({ section: 4, name: `Sandbox charges, ${CHARGE_CLIENTS} clients, ${targets.ledger}: p99`, unit: 'ms', value: charges.p99Ms, baseline: floor.p99Ms, baselineName, note: `p50 ${charges.p50Ms.toFixed(2)} ms` }),
  ];
}

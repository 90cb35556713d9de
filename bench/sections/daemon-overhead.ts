/**
 * Section 1, daemon overhead: POST /sign-card-policy-window through the daemon against the bare
 * server, which parses the same JSON and makes the same one signature and nothing else. The
 * difference is everything the daemon adds: front door, token, validation, the audit log.
 */
import { cpuRows, figure, labelled, type DaemonTarget, type Figure } from '../figures.js';
import { roundRobin, windowRequest } from '../requests.js';
import { measureAlternating, type RunShape, type Target } from '../rounds.js';
import type { Floor } from './floor.js';

export const OVERHEAD_CLIENTS = 8;
const BASELINE = 'bare node:http, JSON.parse + 1 signature';

export interface OverheadTargets {
  daemons: DaemonTarget[];
  barePort: number;
  cardIds: string[];
  /** The irreducible parts, measured in the same run (floor.ts). */
  floor: Floor;
}

/** measureOverhead returns the req/s, p50 and p99 rows of section 1 for each daemon. */
export async function measureOverhead(shape: RunShape, targets: OverheadTargets): Promise<Figure[]> {
  const card = roundRobin(targets.cardIds);
  const common = { concurrency: OVERHEAD_CLIENTS, expectStatus: 200 };
  const loads: Record<string, Target> = { bare: { ...common, port: targets.barePort, request: () => windowRequest('/sign-card-policy-window', 'unused', card()) } };
  for (const daemon of targets.daemons) {
    loads[`latch ${daemon.label}`] = { ...common, port: daemon.port, request: () => windowRequest('/sign-card-policy-window', daemon.token, card()), ...(daemon.pid === undefined ? {} : { cpuPids: [daemon.pid] }) };
  }
  const result = await measureAlternating(shape, loads);
  const bare = result['bare'];
  if (bare === undefined) throw new Error('overhead: missing baseline');
  const label = `POST /sign-card-policy-window, ${OVERHEAD_CLIENTS} clients`;
  const cpu = cpuRows(1, label, targets.daemons, (daemon) => result[`latch ${daemon.label}`]?.cpuMsPerRequest);
  const rows = targets.daemons.flatMap((daemon) => {
    const latch = result[`latch ${daemon.label}`];
    if (latch === undefined) throw new Error('overhead: missing result');
    const note = `${latch.requests} requests through Latch, ${bare.requests} to the baseline`;
    return [
      figure({ section: 1, name: labelled(`${label}: req/s`, daemon.label), unit: 'req/s', value: latch.requestsPerSecond, baseline: bare.requestsPerSecond, baselineName: BASELINE, note }),
      figure({
        section: 1,
        name: labelled(`${label}: req/s against its floor`, daemon.label),
        unit: 'req/s',
        value: latch.requestsPerSecond,
        baseline: targets.floor.signaturesPerSecond,
        baselineName: 'floor: noble Ed25519 signatures/s, one thread',
        goal: { kind: 'ratio_at_least', limit: 0.5 },
        note: 'every signature durably audited before its answer (group commit)',
      }),
      figure({ section: 1, name: labelled(`${label}: p50`, daemon.label), unit: 'ms', value: latch.p50Ms, baseline: bare.p50Ms, baselineName: BASELINE }),
      figure({ section: 1, name: labelled(`${label}: p99`, daemon.label), unit: 'ms', value: latch.p99Ms, baseline: bare.p99Ms, baselineName: BASELINE }),
    ];
  });
  return [...rows, ...cpu];
}

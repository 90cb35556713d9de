/**
 * Section 2, /authorize end to end: the daemon signs a policy window (audit line), signs the
 * upstream request (audit line) and registers the window with the sandbox, which verifies both
 * signatures and journals the authorization (fsync) before answering. Measured at 1, 8 and 64
 * concurrent clients; the baseline at each level is the bare server's one signature per
 * request, the least any design that signs per request can cost.
 */
import { cpuRows, figure, labelled, type DaemonTarget, type Figure } from '../figures.js';
import { roundRobin, windowRequest } from '../requests.js';
import { measureAlternating, type RunShape, type Target } from '../rounds.js';
import { authorizeLatencyFloor, authorizeThroughputFloor, floorText, type Floor } from './floor.js';

export const AUTHORIZE_CLIENTS = [1, 8, 64] as const;
const BASELINE = 'bare server, 1 signature/request, same clients';
const FLOOR_ALONE = 'floor: 2 sign + 2 verify + 2 fdatasync + 2 round trips';
const FLOOR_GROUPED = 'floor: max(2 sign, 2 verify, 2 fdatasync / 8) per authorization';

export interface AuthorizeTargets {
  daemons: DaemonTarget[];
  barePort: number;
  cardIds: string[];
  /** The irreducible parts, measured in the same run (floor.ts). */
  floor: Floor;
}

/** measureAuthorize returns req/s, p50 and p99 at each client count; the p99 at 64 carries the goal. */
export async function measureAuthorize(shape: RunShape, targets: AuthorizeTargets): Promise<{ figures: Figure[]; authorized: number }> {
  const figures: Figure[] = [];
  let authorized = 0;
  for (const clients of AUTHORIZE_CLIENTS) {
    const card = roundRobin(targets.cardIds);
    const common = { concurrency: clients, expectStatus: 200 };
    const loads: Record<string, Target> = { bare: { ...common, port: targets.barePort, request: () => windowRequest('/sign-card-policy-window', 'unused', card()) } };
    for (const daemon of targets.daemons) loads[`latch ${daemon.label}`] = { ...common, port: daemon.port, request: () => windowRequest('/authorize', daemon.token, card()), ...(daemon.pid === undefined ? {} : { cpuPids: [daemon.pid] }) };
    const result = await measureAlternating(shape, loads);
    const bare = result['bare'];
    if (bare === undefined) throw new Error('authorize: missing baseline');
    for (const daemon of targets.daemons) {
      const latch = result[`latch ${daemon.label}`];
      if (latch === undefined) throw new Error('authorize: missing result');
      authorized += latch.requests;
      const label = `POST /authorize, ${clients} client${clients === 1 ? '' : 's'}`;
      figures.push(
        figure({ section: 2, name: labelled(`${label}: req/s`, daemon.label), unit: 'req/s', value: latch.requestsPerSecond, baseline: bare.requestsPerSecond, baselineName: BASELINE, note: `${latch.requests} authorizations created` }),
        figure({ section: 2, name: labelled(`${label}: p50`, daemon.label), unit: 'ms', value: latch.p50Ms, baseline: bare.p50Ms, baselineName: BASELINE }),
        figure({
          section: 2,
          name: labelled(`${label}: p99`, daemon.label),
          unit: 'ms',
          value: latch.p99Ms,
          baseline: bare.p99Ms,
          baselineName: BASELINE,
          ...(clients === 64 ? { goal: { kind: 'value_at_most', limit: 100 } as const } : {}),
        }),
      );
      if (clients === 1) {
        figures.push(figure({ section: 2, name: labelled(`${label}: p50 against its floor`, daemon.label), unit: 'ms', value: latch.p50Ms, baseline: authorizeLatencyFloor(targets.floor), baselineName: FLOOR_ALONE, goal: { kind: 'ratio_at_most', limit: 1.5 }, note: floorText(targets.floor) }));
      }
      if (clients === 8) {
        figures.push(figure({ section: 2, name: labelled(`${label}: req/s against its floor`, daemon.label), unit: 'req/s', value: latch.requestsPerSecond, baseline: authorizeThroughputFloor(targets.floor, clients), baselineName: FLOOR_GROUPED, goal: { kind: 'ratio_at_least', limit: 0.8 } }));
      }
    }
    figures.push(...cpuRows(2, `POST /authorize, ${clients} client${clients === 1 ? '' : 's'}`, targets.daemons, (daemon) => result[`latch ${daemon.label}`]?.cpuMsPerRequest));
  }
  return { figures, authorized };
}

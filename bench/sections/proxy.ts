/**
 * Section 3, the /v1 signing proxy: the same `GET /v1/wallet` through the daemon and directly to
 * the upstream. The upstream is the bare server, which answers a fixed wallet without verifying
 * the signature, so that the difference is the daemon alone: front door, token, one RFC 9421
 * signature, its audit line, and the forwarding fetch. The direct request carries no signature.
 *
 * Added latency is measured with one client (no queueing); throughput with eight, compared with
 * how many signatures per second noble makes on one core in the same run, since each proxied
 * request needs exactly one.
 */
import { cpuRows, figure, labelled, type DaemonTarget, type Figure } from '../figures.js';
import { walletRequest } from '../requests.js';
import { measureAlternating, type RunShape, type Target } from '../rounds.js';
import { floorText, proxyAddedFloor, type Floor } from './floor.js';

export const PROXY_THROUGHPUT_CLIENTS = 8;

export interface ProxyTargets {
  /** Daemons whose cloud is the bare server (LATCH_CLOUD_URL). */
  daemons: DaemonTarget[];
  barePort: number;
  /** The irreducible parts, measured in the same run (floor.ts). */
  floor: Floor;
}

/** measureProxy returns the added p50 and p99 and the throughput rows of section 3 for each daemon. */
export async function measureProxy(shape: RunShape, targets: ProxyTargets): Promise<Figure[]> {
  const signingRate = targets.floor.signaturesPerSecond;
  const single: Record<string, Target> = { direct: { port: targets.barePort, concurrency: 1, expectStatus: 200, request: () => walletRequest() } };
  const loaded: Record<string, Target> = {};
  for (const daemon of targets.daemons) {
    const cpuPids = daemon.pid === undefined ? {} : { cpuPids: [daemon.pid] };
    single[`latch ${daemon.label}`] = { port: daemon.port, concurrency: 1, expectStatus: 200, request: () => walletRequest(daemon.token), ...cpuPids };
    loaded[`latch ${daemon.label}`] = { port: daemon.port, concurrency: PROXY_THROUGHPUT_CLIENTS, expectStatus: 200, request: () => walletRequest(daemon.token), ...cpuPids };
  }
  const latency = await measureAlternating(shape, single);
  const throughput = await measureAlternating(shape, loaded);
  const direct = latency['direct'];
  if (direct === undefined) throw new Error('proxy: missing direct result');
  const baseline = 'the same GET straight to the upstream, unsigned';
  const added = (through: number, straight: number) => `added ${(through - straight).toFixed(2)} ms`;
  const cpu = [
    ...cpuRows(3, 'GET /v1/wallet via proxy, 1 client', targets.daemons, (daemon) => latency[`latch ${daemon.label}`]?.cpuMsPerRequest),
    ...cpuRows(3, `GET /v1/wallet via proxy, ${PROXY_THROUGHPUT_CLIENTS} clients`, targets.daemons, (daemon) => throughput[`latch ${daemon.label}`]?.cpuMsPerRequest),
  ];
  const rows = targets.daemons.flatMap((daemon) => {
    const proxied = latency[`latch ${daemon.label}`];
    const busy = throughput[`latch ${daemon.label}`];
    if (proxied === undefined || busy === undefined) throw new Error('proxy: missing result');
    return [
      figure({ section: 3, name: labelled('GET /v1/wallet via proxy, 1 client: p50', daemon.label), unit: 'ms', value: proxied.p50Ms, baseline: direct.p50Ms, baselineName: baseline, note: added(proxied.p50Ms, direct.p50Ms) }),
      figure({
        section: 3,
        name: labelled('GET /v1/wallet via proxy, 1 client: added p50 against its floor', daemon.label),
        unit: 'ms',
        value: proxied.p50Ms - direct.p50Ms,
        baseline: proxyAddedFloor(targets.floor),
        baselineName: 'floor: 1 sign + 1 fdatasync + 1 round trip',
        goal: { kind: 'added_at_most', limit: 0.5 },
        note: floorText(targets.floor),
      }),
      figure({ section: 3, name: labelled('GET /v1/wallet via proxy, 1 client: p99', daemon.label), unit: 'ms', value: proxied.p99Ms, baseline: direct.p99Ms, baselineName: baseline, note: added(proxied.p99Ms, direct.p99Ms) }),
      figure({
        section: 3,
        name: labelled(`GET /v1/wallet via proxy, ${PROXY_THROUGHPUT_CLIENTS} clients: req/s`, daemon.label),
        unit: 'req/s',
        value: busy.requestsPerSecond,
        baseline: signingRate,
        baselineName: 'noble Ed25519 signatures/s, one thread',
        note: `p50 ${busy.p50Ms.toFixed(2)} ms, p99 ${busy.p99Ms.toFixed(2)} ms at ${PROXY_THROUGHPUT_CLIENTS} clients; direct at 1 client: ${direct.requestsPerSecond.toFixed(0)} req/s`,
      }),
    ];
  });
  return [...rows, ...cpu];
}

/**
 * Section 15, the x402 guard: POST /x402/authorize against POST /authorize at one client,
 * alternating in the same run. An x402 authorization is a decision, a ledger record with its
 * receipt and an audit line, with no cloud registration to wait for; the goal is a p50 at most 1.2
 * times /authorize's (issue 46). Measured for this tree only: a tree under comparison may not
 * serve the route.
 */
import { figure, labelled, type DaemonTarget, type Figure } from '../figures.js';
import type { LoadRequest } from '../load-generator.js';
import { BENCH_MERCHANT, roundRobin, windowRequest } from '../requests.js';
import { measureAlternating, type RunShape } from '../rounds.js';

/** x402Request asks for one exact payment of 0.01 Base Sepolia USDC at the bench merchant. */
export function x402Request(token: string): LoadRequest {
  return {
    method: 'POST',
    path: '/x402/authorize',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'user-agent': 'latch-bench/1' },
    body: Buffer.from(
      JSON.stringify({
        x402_version: 2,
        resource: { url: `https://${BENCH_MERCHANT}/premium-data`, description: 'Bench data' },
        requirements: {
          scheme: 'exact',
          network: 'eip155:84532',
          amount: '10000',
          asset: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
          payTo: '0x209693Bc6afc0C5328bA36FaF03C514EF312287C',
          maxTimeoutSeconds: 60,
          extra: { name: 'USDC', version: '2' },
        },
      }),
    ),
  };
}

/** measureX402 returns the p50 of POST /x402/authorize at one client against /authorize's. */
export async function measureX402(shape: RunShape, targets: { daemon: DaemonTarget; cardIds: string[] }): Promise<Figure[]> {
  const { daemon } = targets;
  const card = roundRobin(targets.cardIds);
  const result = await measureAlternating(shape, {
    authorize: { concurrency: 1, expectStatus: 200, port: daemon.port, request: () => windowRequest('/authorize', daemon.token, card()) },
    x402: { concurrency: 1, expectStatus: 201, port: daemon.port, request: () => x402Request(daemon.token) },
  });
  const authorize = result['authorize'];
  const x402 = result['x402'];
  if (authorize === undefined || x402 === undefined) throw new Error('x402: missing result');
  return [
    figure({
      section: 15,
      name: labelled('POST /x402/authorize, 1 client: p50', daemon.label),
      unit: 'ms',
      value: x402.p50Ms,
      baseline: authorize.p50Ms,
      baselineName: 'POST /authorize, 1 client, p50, same run',
      goal: { kind: 'ratio_at_most', limit: 1.2 },
      note: `${x402.requests} x402 authorizations (decision, ledger record with its receipt, audit line); p99 ${x402.p99Ms.toFixed(2)} ms against ${authorize.p99Ms.toFixed(2)} ms`,
    }),
  ];
}

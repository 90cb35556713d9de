/**
 * Section 13, AP2 mandates: POST /ap2/mandates against POST /authorize at one client, alternating
 * in the same run. A mandate request is an /authorize (decision, ledger entry, window signature,
 * registration with the sandbox) plus two ES256 signatures and one more audit line; the goal is a
 * p50 at most 1.3 times /authorize's (shared/spec/ap2-mandates.md). Measured for this tree only:
 * a tree under comparison may not serve the route.
 */
import { generateKeyPairSync } from 'node:crypto';
import { figure, labelled, type DaemonTarget, type Figure } from '../figures.js';
import type { LoadRequest } from '../load-generator.js';
import { BENCH_MERCHANT, roundRobin, windowRequest } from '../requests.js';
import { measureAlternating, type RunShape } from '../rounds.js';

/** One agent key for the whole run: a mandate binds it, Latch never holds its private half. */
const AGENT_KEY = (() => {
  const jwk = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ format: 'jwk' });
  return { kty: 'EC', crv: 'P-256', x: jwk.x, y: jwk.y };
})();

/** mandateRequest asks for the open mandates of a 1.00 ceiling at the bench merchant, like windowRequest's /authorize. */
export function mandateRequest(token: string, cardId: string): LoadRequest {
  return {
    method: 'POST',
    path: '/ap2/mandates',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'user-agent': 'latch-bench/1' },
    body: Buffer.from(
      JSON.stringify({
        card_id: cardId,
        merchant: { name: 'Bench Shop', website: `https://${BENCH_MERCHANT}` },
        amount_max: '1.00',
        currency: 'USD',
        items: [{ id: 'sku-1', title: 'Bench item', quantity: 1, alternatives: [{ id: 'sku-2', title: 'Other bench item' }] }],
        ttl_minutes: 60,
        agent_key: AGENT_KEY,
      }),
    ),
  };
}

/** measureAp2Mandates returns the p50 of POST /ap2/mandates at one client against /authorize's. */
export async function measureAp2Mandates(shape: RunShape, targets: { daemon: DaemonTarget; cardIds: string[] }): Promise<Figure[]> {
  const { daemon } = targets;
  const card = roundRobin(targets.cardIds);
  const result = await measureAlternating(shape, {
    authorize: { concurrency: 1, expectStatus: 200, port: daemon.port, request: () => windowRequest('/authorize', daemon.token, card()) },
    mandates: { concurrency: 1, expectStatus: 201, port: daemon.port, request: () => mandateRequest(daemon.token, card()) },
  });
  const authorize = result['authorize'];
  const mandates = result['mandates'];
  if (authorize === undefined || mandates === undefined) throw new Error('ap2 mandates: missing result');
  return [
    figure({
      section: 13,
      name: labelled('POST /ap2/mandates, 1 client: p50', daemon.label),
      unit: 'ms',
      value: mandates.p50Ms,
      baseline: authorize.p50Ms,
      baselineName: 'POST /authorize, 1 client, p50, same run',
      goal: { kind: 'ratio_at_most', limit: 1.3 },
      note: `${mandates.requests} mandate pairs (2 ES256 SD-JWTs and a card window each); p99 ${mandates.p99Ms.toFixed(2)} ms against ${authorize.p99Ms.toFixed(2)} ms`,
    }),
  ];
}

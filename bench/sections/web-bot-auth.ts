/**
 * Section 10, agent identity: POST /web-bot-auth/sign at 8 concurrent clients. Each answer is one
 * Ed25519 signature with the caller's identity key (in the cloud-corrected clock, with a fresh
 * 64-byte nonce) and its audit line, fsynced (group-committed) before the answer. The baseline is
 * noble's signature rate on one thread, from the floor measured in the same run; the goal is at
 * least half of it (docs/decisions.md §23.7). Measured for this tree only: a tree under
 * comparison may not serve the route.
 */
import { figure, labelled, type DaemonTarget, type Figure } from '../figures.js';
import type { LoadRequest } from '../load-generator.js';
import { measureAlternating, type RunShape } from '../rounds.js';
import type { Floor } from './floor.js';

export const WEB_BOT_AUTH_CLIENTS = 8;

/** signRequest is an agent's request for the signature of a GET it is about to send. */
export function signRequest(token: string): LoadRequest {
  return {
    method: 'POST',
    path: '/web-bot-auth/sign',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'user-agent': 'latch-bench/1' },
    body: Buffer.from(JSON.stringify({ method: 'GET', url: 'https://shop.example.com/products?id=1', tag: 'web-bot-auth' })),
  };
}

/** measureWebBotAuth returns the signing rate at 8 clients against noble's signature rate. */
export async function measureWebBotAuth(shape: RunShape, targets: { daemon: DaemonTarget; floor: Floor }): Promise<Figure[]> {
  const { daemon, floor } = targets;
  const result = await measureAlternating(shape, {
    sign: { concurrency: WEB_BOT_AUTH_CLIENTS, expectStatus: 200, port: daemon.port, request: () => signRequest(daemon.token) },
  });
  const sign = result['sign'];
  if (sign === undefined) throw new Error('web-bot-auth: missing result');
  return [
    figure({
      section: 10,
      name: labelled(`POST /web-bot-auth/sign, ${WEB_BOT_AUTH_CLIENTS} clients: signatures/s`, daemon.label),
      unit: 'req/s',
      value: sign.requestsPerSecond,
      baseline: floor.signaturesPerSecond,
      baselineName: "noble's Ed25519 signatures/s on one thread (the floor)",
      goal: { kind: 'ratio_at_least', limit: 0.5 },
      note: `${sign.requests} signatures, each with its audit line fsynced before the answer; p50 ${sign.p50Ms.toFixed(2)} ms, p99 ${sign.p99Ms.toFixed(2)} ms`,
    }),
  ];
}

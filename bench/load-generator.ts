/**
 * The load generator: N concurrent clients, each sending its next request as soon as the last
 * one is answered, over keep-alive node:http connections (one Agent, one socket per client).
 * Every run is bounded by a request count and a duration, whichever comes first, and talks to
 * loopback only.
 */
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import type { RoundResult } from './stats.js';

/** One request as the generator sends it. */
export interface LoadRequest {
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: Buffer;
}

export interface LoadOptions {
  /** The server's port on 127.0.0.1. */
  port: number;
  concurrency: number;
  /** Stop after this many requests have been started. */
  requestsMax: number;
  /** Stop starting requests after this long. */
  durationMs: number;
  /** The request to send; called once per request. */
  request: () => LoadRequest;
  /** The status every answer must have; any other status counts as an error. */
  expectStatus: number;
  /** Called with the body of every expected answer, for rows that count outcomes. */
  inspect?: (text: string) => void;
}

/** A request that has not been answered after this long is an error, and the run goes on. */
const REQUEST_TIMEOUT_MS = 15_000;

/** The first error answer, kept so that a failing row can say why. */
export interface LoadRun extends RoundResult {
  firstError?: string;
}

/** runLoad drives one round of load and returns every latency measured in it. */
export async function runLoad(options: LoadOptions): Promise<LoadRun> {
  if (options.concurrency < 1 || options.requestsMax < 1) throw new RangeError('concurrency and requestsMax must be at least 1');
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.concurrency, maxFreeSockets: options.concurrency });
  const latenciesMs: number[] = [];
  let started = 0;
  let errors = 0;
  let firstError: string | undefined;
  const startMs = performance.now();
  const deadlineMs = startMs + options.durationMs;

  const client = async (): Promise<void> => {
    while (started < options.requestsMax && performance.now() < deadlineMs) {
      started += 1;
      const request = options.request();
      const sentMs = performance.now();
      const answer = await send(agent, options.port, request);
      const doneMs = performance.now();
      if (answer.status === options.expectStatus) {
        latenciesMs.push(doneMs - sentMs);
        options.inspect?.(answer.text);
      } else {
        errors += 1;
        firstError ??= `${request.method} ${request.path}: ${answer.status === 0 ? answer.text : `HTTP ${answer.status} ${answer.text.slice(0, 300)}`}`;
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: options.concurrency }, client));
  } finally {
    agent.destroy();
  }
  const elapsedMs = performance.now() - startMs;
  return { requests: latenciesMs.length, errors, elapsedMs, latenciesMs, ...(firstError === undefined ? {} : { firstError }) };
}

/** send performs one request and reads the whole answer; status 0 means no answer (text says why). */
export function send(agent: http.Agent | false, port: number, request: LoadRequest): Promise<{ status: number; text: string }> {
  return new Promise((resolve) => {
    const headers: Record<string, string | number> = { ...request.headers };
    if (request.body !== undefined) headers['content-length'] = request.body.length;
    const outgoing = http.request({ host: '127.0.0.1', port, method: request.method, path: request.path, headers, agent }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      response.on('error', (error) => resolve({ status: 0, text: error.message }));
    });
    outgoing.setTimeout(REQUEST_TIMEOUT_MS, () => outgoing.destroy(new Error(`no answer within ${REQUEST_TIMEOUT_MS} ms`)));
    outgoing.on('error', (error) => resolve({ status: 0, text: error.message }));
    outgoing.end(request.body);
  });
}

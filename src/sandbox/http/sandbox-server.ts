import { setMaxListeners } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { LatchError, invalidRequest } from '../../errors/latch-error.js';
import { randomId } from '../../ids/random-id.js';
import type { EventLog } from '../../http/event-log.js';
import { declaresBody, readRequestBody } from '../../http/request-body.js';
import { splitTarget } from '../../http/request-target.js';
import { sendError, sendJson, sendRaw } from '../../http/respond.js';
import { isEventStream, isRawResult, type RequestContext, type RouteResult } from '../../http/route.js';
import type { Router } from '../../http/router.js';
import { assertNoCardData } from '../../validate/card-data-guard.js';
import { followSignals } from '../../runtime/follow-signals.js';

/** The cloud accepts bodies up to 1 MiB (docs/decisions.md §13: the proxied body limit). */
export const SANDBOX_BODY_BYTES_MAX = 1024 * 1024;
const KNOWN_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE']);
/** Connections and time are bounded like the daemon's: slow or piled-up clients cannot exhaust it. */
const CONNECTIONS_MAX = 512;
const HEADERS_TIMEOUT_MS = 10_000;
const REQUEST_TIMEOUT_MS = 30_000;
const KEEP_ALIVE_TIMEOUT_MS = 5_000;

/**
 * createSandboxServer returns the sandbox's HTTP server. Every request goes the same way: an
 * origin-form target, a known method, a route (404/405), a JSON body of at most 1 MiB (none on
 * GET and DELETE), the card-data guard on path, query and body, then the route's handler, which
 * authenticates (device signature or admin key) before anything else. Every failure, bad input
 * above all, is answered with the common error body; nothing a client sends can crash it.
 */
export function createSandboxServer(router: Router, log: EventLog | undefined, shutdown: AbortSignal, ledgerNowSeconds?: () => number): Server {
  // Every request in flight follows the shutdown signal with one listener: many by design.
  setMaxListeners(0, shutdown);
  const server = createServer({ headersTimeout: HEADERS_TIMEOUT_MS, requestTimeout: REQUEST_TIMEOUT_MS, keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS }, (request, response) => {
    // The Date header tells the daemon the cloud's clock: the ledger clock, which decides when
    // windows start and end (it runs ahead of the real clock after POST /v1/sandbox/clock).
    if (ledgerNowSeconds !== undefined) response.setHeader('date', new Date(ledgerNowSeconds() * 1000).toUTCString());
    void handle(router, log, shutdown, request, response);
  });
  server.maxConnections = CONNECTIONS_MAX;
  server.on('clientError', (_error, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
    else socket.destroy();
  });
  return server;
}

async function handle(router: Router, log: EventLog | undefined, shutdown: AbortSignal, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const requestId = randomId('req');
  response.setHeader('x-request-id', requestId);
  try {
    const result = await admit(router, shutdown, request, response, requestId);
    // Raw bytes only for the agents' key directory, whose media type is its own.
    if (isRawResult(result)) sendRaw(response, result.status, result.rawBody, result.headers);
    else if (isEventStream(result)) throw new Error('the sandbox serves no event stream');
    else sendJson(response, result.status, result.body, result.headers ?? {});
  } catch (error) {
    if (!(error instanceof LatchError)) log?.error('internal_error', { request_id: requestId, cause: error instanceof Error ? error.name : typeof error });
    const close = declaresBody(request) && !request.complete;
    if (close) request.resume();
    sendError(response, error, requestId, { close, remedy: false });
  }
}

async function admit(router: Router, shutdown: AbortSignal, request: IncomingMessage, response: ServerResponse, requestId: string): Promise<RouteResult> {
  const target = request.url ?? '';
  if (!target.startsWith('/')) throw invalidRequest('path', 'The request target must be an absolute path.');
  const method = request.method ?? '';
  if (!KNOWN_METHODS.has(method)) throw new LatchError('method_not_allowed');
  const { path, rawQuery } = splitTarget(target);
  const match = router.match(method, path);
  // Before the body is read: a client that leaves meanwhile must still abort, and release, the signal.
  const client = new AbortController();
  const followed = followSignals([client.signal, shutdown]);
  response.once('close', () => {
    if (!response.writableFinished) client.abort();
    followed.release();
  });
  const { rawBody, body } = await readRequestBody(request, match.route.bodyBytesMax ?? SANDBOX_BODY_BYTES_MAX);
  assertNoCardData({ path, query: rawQuery, body });
  const context: RequestContext = {
    method,
    path,
    query: new URLSearchParams(rawQuery),
    rawQuery,
    params: match.params,
    headers: request.headers,
    body,
    rawBody,
    requestId,
    // The sandbox authenticates per route (admin key or device signature), not by a local token.
    principal: undefined,
    ownerPresent: false,
    userAgent: request.headers['user-agent'] ?? '',
    signal: followed.signal,
  };
  return match.route.handler(context);
}

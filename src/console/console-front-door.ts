/**
 * The console's one front door (spec owner-console §4). Every request passes, in this order:
 *
 * 1. Host: exactly one Host naming `localhost:PORT`, `127.0.0.1:PORT` or `[::1]:PORT`; a page
 *    asked for on an address is redirected to `localhost` (the passkeys' RP ID), an API call on
 *    one is served (the session cookie only exists for `localhost`, so it fails on the cookie).
 * 2. Method: GET, HEAD, POST, PUT and DELETE only; OPTIONS (a CORS preflight) is refused.
 * 3. Pages and assets: GET only, no cookie needed for the login page and the assets; a page
 *    without a session gets the login page.
 * 4. The JSON API under `/console/api/`: anything but GET must carry `Origin` equal to the
 *    console's own origin; every call but the login needs the session cookie and the session's
 *    `X-Latch-CSRF` header.
 * 5. Body (JSON content type, size cap, strict JSON) and the card-data guard, as on the API.
 * 6. The route: a console route, or one of Variant A's routes called as the owner (`/console/api/a/…`);
 *    an 'owner_present' route of A needs presence, which only the console's own routes prove, so
 *    it is refused here once a presence factor is configured (403 owner_presence_required).
 *
 * Every answer carries CONSOLE_SECURITY_HEADERS, and none an `Access-Control-*` header.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { OWNER } from '../core/principal.js';
import { LatchError } from '../errors/latch-error.js';
import { errorKind } from '../http/front-door.js';
import type { FrontDoor, ListenerState } from '../http/front-door.js';
import type { EventLog } from '../http/event-log.js';
import { originFormTarget, validHost } from '../http/host-check.js';
import { declaresBody, readRequestBody } from '../http/request-body.js';
import { splitTarget } from '../http/request-target.js';
import { isRawResult, type RequestContext, type RouteResult } from '../http/route.js';
import type { Router } from '../http/router.js';
import { MethodNotAllowed } from '../http/router.js';
import { randomId } from '../ids/random-id.js';
import { assertNoCardData } from '../validate/card-data-guard.js';
import { secretsEqual } from '../crypto/constant-time.js';
import { consoleAsset, consolePage, isConsolePage } from './assets/console-assets.js';
import { CONSOLE_SECURITY_HEADERS, cookieValue } from './console-headers.js';
import type { ConsoleSession, ConsoleSessions } from './console-sessions.js';

export const CONSOLE_API_PREFIX = '/console/api';
/** Variant A's routes, called as the owner, live under this prefix. */
export const CONSOLE_A_PREFIX = `${CONSOLE_API_PREFIX}/a`;
export const CSRF_HEADER = 'x-latch-csrf';

const KNOWN_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE']);

/**
 * A live answer (server-sent events): the front door writes the headers, then `pump` writes events
 * until the client leaves or the server stops (the signal), and ends the response itself.
 */
export interface EventStreamResult {
  readonly status: 200;
  readonly pump: (write: (event: string, data: string) => boolean, signal: AbortSignal) => Promise<void>;
}

/** isEventStream reports whether a route's result is a live event stream. */
function isEventStream(result: unknown): result is EventStreamResult {
  return typeof result === 'object' && result !== null && 'pump' in result;
}

/** What a console route sees beyond the request: the session it runs in. */
export interface ConsoleRequestContext extends RequestContext {
  /** The console session; undefined only on the login route. */
  session: ConsoleSession | undefined;
  /** The raw cookie value (for logout), never logged. */
  sessionCookie: string | undefined;
}

export interface ConsoleFrontDoorOptions {
  /** The console's own JSON routes (login, passkeys, activity, events…), patterns without the prefix. */
  consoleRoutes: Router;
  /** Variant A's route table, called as the owner. */
  apiRoutes: Router;
  sessions: ConsoleSessions;
  log: EventLog;
  /** Routes of consoleRoutes that need no session (the login). */
  publicConsolePatterns: ReadonlySet<string>;
  /** Whether a presence factor is configured (then the session alone is not presence). */
  presenceConfigured: () => boolean;
}

/** createConsoleFrontDoor returns the function every console request passes. */
export function createConsoleFrontDoor(options: ConsoleFrontDoorOptions): FrontDoor {
  return async (request, response, state) => {
    const requestId = randomId('req');
    const startedMs = performance.now();
    let code: string | undefined;
    response.once('close', () => {
      const method = request.method !== undefined && KNOWN_METHODS.has(request.method) ? request.method : 'other';
      const fields: Record<string, unknown> = { listener: 'console', method, status: response.statusCode, ms: Math.round((performance.now() - startedMs) * 10) / 10, request_id: requestId };
      if (code !== undefined) fields['code'] = code;
      options.log.info('request', fields);
    });
    for (const [name, value] of Object.entries(CONSOLE_SECURITY_HEADERS)) response.setHeader(name, value);
    response.setHeader('x-request-id', requestId);
    try {
      await admitAndServe(options, request, response, state, requestId);
    } catch (error) {
      if (error instanceof LatchError) code = error.code;
      else {
        code = 'internal_error';
        options.log.error('internal_error', { listener: 'console', request_id: requestId, cause: errorKind(error) });
      }
      const close = declaresBody(request) && !request.complete;
      if (close) request.resume();
      sendConsoleError(response, error, requestId, close);
    }
  };
}

async function admitAndServe(options: ConsoleFrontDoorOptions, request: IncomingMessage, response: ServerResponse, state: ListenerState, requestId: string): Promise<void> {
  const target = request.url;
  if (!originFormTarget(target) || !validHost(request.rawHeaders, state.port)) throw new LatchError('forbidden_host');
  const method = request.method ?? '';
  if (method === 'OPTIONS') throw new LatchError('forbidden_origin');
  if (!KNOWN_METHODS.has(method)) throw new LatchError('method_not_allowed');
  const { path, rawQuery } = splitTarget(target);

  if (path !== CONSOLE_API_PREFIX && !path.startsWith(`${CONSOLE_API_PREFIX}/`)) {
    servePage(request, response, options.sessions, path, state.port);
    return;
  }

  if (method !== 'GET' && method !== 'HEAD' && request.headers.origin !== consoleOrigin(state.port)) throw new LatchError('forbidden_origin');
  const sessionCookie = cookieValue(request.headers.cookie);
  const inA = path.startsWith(`${CONSOLE_A_PREFIX}/`);
  const routedPath = inA ? path.slice(CONSOLE_A_PREFIX.length) : path.slice(CONSOLE_API_PREFIX.length) || '/';
  const match = (inA ? options.apiRoutes : options.consoleRoutes).match(method === 'HEAD' ? 'GET' : method, routedPath);
  const needsSession = inA || !options.publicConsolePatterns.has(match.route.pattern);
  let session: ConsoleSession | undefined;
  if (needsSession) {
    session = sessionCookie === undefined ? undefined : options.sessions.session(sessionCookie);
    if (session === undefined) throw new LatchError('console_login_required');
    const csrf = request.headers[CSRF_HEADER];
    if (typeof csrf !== 'string' || !secretsEqual(csrf, session.csrf)) throw new LatchError('console_csrf_invalid');
  }

  // The session is the owner without presence: an owner-present route of A is reached only through
  // the console's own routes, which ask for fresh presence (docs/decisions.md §25).
  if (inA && match.route.access === 'owner_present' && options.presenceConfigured()) throw new LatchError('owner_presence_required');
  const { rawBody, body } = await readRequestBody(request, match.route.bodyBytesMax);
  assertNoCardData({ path, query: rawQuery, body, headerValues: [] });
  const headers = { ...request.headers };
  delete headers['cookie'];
  delete headers['authorization'];
  delete headers[CSRF_HEADER];
  const context: ConsoleRequestContext = {
    method,
    path: routedPath,
    query: new URLSearchParams(rawQuery),
    rawQuery,
    params: match.params,
    headers,
    body,
    rawBody,
    requestId,
    principal: OWNER,
    ownerPresent: false,
    userAgent: request.headers['user-agent'] ?? '',
    signal: requestSignal(response, state.shutdown),
    session,
    sessionCookie,
  };
  const result: unknown = await match.route.handler(context);
  if (isEventStream(result)) {
    response.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', connection: 'keep-alive' });
    const write = (event: string, data: string): boolean => response.write(`event: ${event}\ndata: ${data}\n\n`);
    await result.pump(write, context.signal);
    response.end();
    return;
  }
  writeResult(response, result as RouteResult);
}

/** consoleOrigin is the one origin the console's pages run in. */
export function consoleOrigin(port: number): string {
  return `http://localhost:${port}`;
}

function servePage(request: IncomingMessage, response: ServerResponse, sessions: ConsoleSessions, path: string, port: number): void {
  if (request.method !== 'GET' && request.method !== 'HEAD') throw new MethodNotAllowed(['GET']);
  const host = (request.headers.host ?? '').toLowerCase();
  if (!host.startsWith('localhost:')) {
    // WebAuthn's RP ID is `localhost`; pages on an address could not use the owner's passkeys.
    response.writeHead(302, { location: `${consoleOrigin(port)}${path === '/' ? '/approvals' : path}` });
    response.end();
    return;
  }
  const asset = consoleAsset(path);
  if (asset !== undefined) {
    send(response, 200, asset.contentType, asset.body);
    return;
  }
  if (path === '/') {
    response.writeHead(302, { location: '/approvals' });
    response.end();
    return;
  }
  if (path === '/login' || !isConsolePage(path)) {
    if (path !== '/login' && !isConsolePage(path)) throw new LatchError('not_found');
    send(response, 200, 'text/html; charset=utf-8', consolePage('/login'));
    return;
  }
  const cookie = cookieValue(request.headers.cookie);
  const session = cookie === undefined ? undefined : sessions.session(cookie);
  send(response, 200, 'text/html; charset=utf-8', session === undefined ? consolePage('/login') : consolePage(path, session.csrf));
}

function send(response: ServerResponse, status: number, contentType: string, body: string): void {
  response.writeHead(status, { 'content-type': contentType, 'content-length': String(Buffer.byteLength(body)) });
  response.end(body);
}

function writeResult(response: ServerResponse, result: RouteResult): void {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(result.headers ?? {})) {
    if (!name.toLowerCase().startsWith('access-control-')) headers[name] = value;
  }
  if (isRawResult(result)) {
    response.writeHead(result.status, { ...headers, 'content-length': String(result.rawBody.byteLength) });
    response.end(result.rawBody);
    return;
  }
  const text = JSON.stringify(result.body);
  response.writeHead(result.status, { ...headers, 'content-type': 'application/json; charset=utf-8', 'content-length': String(Buffer.byteLength(text)) });
  response.end(text);
}

function sendConsoleError(response: ServerResponse, error: unknown, requestId: string, close: boolean): void {
  const latchError = error instanceof LatchError ? error : new LatchError('internal_error');
  if (response.headersSent) {
    response.destroy();
    return;
  }
  const headers: Record<string, string> = {};
  if (latchError.retryAfterSeconds !== undefined) headers['retry-after'] = String(latchError.retryAfterSeconds);
  if (latchError instanceof MethodNotAllowed) headers['allow'] = latchError.allow.join(', ');
  if (close) headers['connection'] = 'close';
  const text = JSON.stringify(latchError.toBody(requestId));
  response.writeHead(latchError.status, { ...headers, 'content-type': 'application/json; charset=utf-8', 'content-length': String(Buffer.byteLength(text)) });
  response.end(text);
}

function requestSignal(response: ServerResponse, shutdown: AbortSignal): AbortSignal {
  const controller = new AbortController();
  response.once('close', () => {
    if (!response.writableFinished) controller.abort();
  });
  return AbortSignal.any([controller.signal, shutdown]);
}

import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { RequestSignals } from './request-signals.js';
import { performance } from 'node:perf_hooks';
import type { OwnerPresence } from '../owner/owner-presence.js';
import type { Principal } from '../core/principal.js';
import { isJsonObject } from '../json/parse-json.js';
import { DataDirError } from '../datadir/data-dir-error.js';
import { LatchError } from '../errors/latch-error.js';
import { randomId } from '../ids/random-id.js';
import { assertNoCardData } from '../validate/card-data-guard.js';
import type { Credential } from './bearer-token.js';
import { admitCredential, CSRF_HEADER, type BrowserListener } from './door-credential.js';

export type { BrowserListener } from './door-credential.js';
export { OWNER_PASSPHRASE_HEADER } from './inline-presence.js';
import { inlinePassphrase, OWNER_PASSPHRASE_HEADER, OWNER_PRESENCE_HEADER, presenceProof, withoutPassphrase } from './inline-presence.js';
import { fromBrowser } from './browser-check.js';
import { framingFault } from './message-framing.js';
import type { EventLog } from './event-log.js';
import { attachProofs, type ProofSources } from './proof-headers.js';
import { originFormTarget, validHost } from './host-check.js';
import { declaresBody, readRequestBody } from './request-body.js';
import { splitTarget } from './request-target.js';
import { sendError, sendJson, sendRaw } from './respond.js';
import { isEventStream, isRawResult, type RequestContext, type RouteResult } from './route.js';
import type { RouteMatch, Router } from './router.js';

/** Methods the API knows; anything else (TRACE, PROPFIND, ...) is refused before routing. */
const KNOWN_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE']);

/** What the front door needs to know about its listener. */
export interface FrontDoorOptions {
  /** The listener's name in log lines (`a` or `b`). */
  listener: string;
  router: Router;
  /**
   * Every token accepted now and whom it stands for (the daemon token as the owner, and each
   * agent's); called per request, so a rotated or removed token takes effect at once.
   */
  credentials: () => ReadonlyArray<Credential>;
  /** Told of every caller whose token was accepted (an agent's last use is shown by `latch agent list`). */
  noteCaller?: (principal: Principal) => void;
  /**
   * The owner's presence (docs/decisions.md §21): which factors are configured, the one
   * passphrase check and the owner sessions. Required: an 'owner_present' route cannot be served
   * without it.
   */
  presence: Pick<OwnerPresence, 'configured' | 'provePassphrase' | 'useSession' | 'endSession'>;
  log: EventLog;
  /**
   * The owner console's rules (docs/decisions.md §29.2); absent on A and B, which refuse every
   * browser and take only bearer credentials.
   */
  browser?: BrowserListener;
  /**
   * The daemon's identity proofs on GET /health (proof-headers.ts), set only on a request that
   * passed every check of the door; Variant A's listener only.
   */
  proofs?: ProofSources;
}

/** Per-request facts only the server knows: its actual port, its shutdown and stopping signals, its header-count limit. */
export interface ListenerState {
  port: number;
  /** Aborted when the stop's deadline has passed: everything still running is cut off. */
  shutdown: AbortSignal;
  /** The most header fields a request may carry (the server has Node keep one more, so a longer list is seen). */
  headersCountMax: number;
  /**
   * Aborted as soon as a stop begins: a request holding on for the owner's decision answers at
   * once with the approval as it stands (docs/decisions.md §24.3).
   */
  stopping?: AbortSignal;
}

/** A request handler for one listener. It never rejects: every failure becomes an answer. */
export type FrontDoor = (request: IncomingMessage, response: ServerResponse, state: ListenerState) => Promise<void>;

/**
 * createFrontDoor returns the one function every request of a listener passes (docs/decisions.md §8).
 * The checks run in this order, and the first that fails answers:
 *
 * 0. Framing: HTTP/1.x only, no Transfer-Encoding in HTTP/1.0, at most headersCountMax header
 *    fields (400 invalid_request, connection closed; message-framing.ts).
 * 1. Host: exactly one Host header naming loopback and this port; origin-form target (403 forbidden_host).
 * 2. Browser signs: Origin, Referer, Sec-Fetch-Site other than `none` (403 forbidden_origin).
 * 3. Method: OPTIONS is a CORS preflight (403 forbidden_origin); unknown methods are 405.
 * 4. Token, for every request except those matching a route of access 'public': checking it
 *    before the 404/405 decision means an unauthenticated caller cannot probe the route table.
 *    The token names the caller (the owner or an agent).
 *    A bearer `los_…` is an owner session (docs/decisions.md §21): the owner, with presence.
 * 5. Route match (404 not_found / 405 method_not_allowed), then the route's access: an agent on
 *    an 'owner' or 'owner_present' route is 403 agent_not_permitted.
 * 6. Body: none on GET/HEAD/DELETE (400), JSON content type (415), size cap (413, connection
 *    closed), strict UTF-8 JSON within depth and member limits (400 invalid_request, param body).
 * 7. Card-data guard on path, query, parsed body and the header values that are stored or
 *    forwarded (400 card_data_not_accepted).
 * 8. Presence, on an 'owner_present' route once a factor is configured: an owner session, or the
 *    passphrase inline (`passphrase` in the JSON body, or the Latch-Owner-Passphrase header),
 *    checked through the one lockout (401 invalid_passphrase, 429 too_many_attempts); none is
 *    403 owner_presence_required. The passphrase is taken out of the body the handler sees.
 * 9. The daemon's proofs on a challenged GET /health (options.proofs), then the route's handler.
 *
 * On the owner console's listener (options.browser) the same steps run with its rules: step 2
 * admits a browser, but anything but GET and HEAD must carry exactly the console's Origin; step 4's
 * credential is the session cookie plus the session's X-Latch-CSRF header (401
 * console_login_required, 403 console_csrf_invalid), never a bearer; step 8 also takes a passkey
 * or the passphrase in the Latch-Owner-Presence header. A console session is the owner without
 * presence. Its pages are 'public' routes that see the session, if any, to show the login page or
 * the page.
 *
 * Every answer carries `X-Request-Id`, every error body its `request_id`, and no answer ever
 * carries an `Access-Control-*` header.
 */
export function createFrontDoor(options: FrontDoorOptions): FrontDoor {
  return async (request, response, state) => {
    const requestId = randomId('req');
    const startedMs = performance.now();
    const trace: RequestTrace = { route: undefined, code: undefined };
    if (options.browser !== undefined) for (const [name, value] of Object.entries(options.browser.answerHeaders)) response.setHeader(name, value);
    response.setHeader('x-request-id', requestId);
    response.once('close', () => logRequest(options, request, response, requestId, startedMs, trace));
    // Before anything awaits: a client that leaves while the body is read or a passphrase checked
    // must still abort the request's signals, and release them (request-signals.ts).
    const signals = new RequestSignals(response, state.shutdown, state.stopping);
    const fault = framingFault(request, state.headersCountMax);
    if (fault !== undefined) {
      // The body, if any, is not read: nothing after this request on the connection can be trusted.
      trace.code = fault.code;
      request.resume();
      sendError(response, fault, requestId, { close: true });
      return;
    }
    try {
      const result = await admitAndHandle(options, request, signals, state, requestId, trace, () => {
        if (options.proofs !== undefined) attachProofs(request, response, options.proofs);
      });
      await writeResult(response, result, signals);
    } catch (error) {
      if (error instanceof DataDirError) {
        // A file went bad while the daemon runs: fail closed with a code that says so. The file
        // and the fix go to the local log only, never to a caller who may not have the token.
        options.log.error('data_directory_unavailable', { listener: options.listener, request_id: requestId, file: error.file, fix: error.fix, problem: error.code });
        error = new LatchError('data_directory_unavailable');
      }
      if (error instanceof LatchError) {
        trace.code = error.code;
      } else {
        trace.code = 'internal_error';
        options.log.error('internal_error', { listener: options.listener, request_id: requestId, cause: errorKind(error) });
      }
      // A body left unread would be parsed as the next request; closing is simpler and safer.
      const close = declaresBody(request) && !request.complete;
      if (close) request.resume();
      sendError(response, error, requestId, { close });
    }
  };
}

interface RequestTrace {
  route: string | undefined;
  code: string | undefined;
}

async function admitAndHandle(
  options: FrontDoorOptions,
  request: IncomingMessage,
  signals: RequestSignals,
  state: ListenerState,
  requestId: string,
  trace: RequestTrace,
  admitted: () => void,
): Promise<RouteResult> {
  const target = request.url;
  const { browser } = options;
  if (!originFormTarget(target) || !validHost(request.rawHeaders, state.port)) throw new LatchError('forbidden_host');
  const method = request.method ?? '';
  if (browser === undefined ? fromBrowser(request.headers) : method !== 'GET' && method !== 'HEAD' && request.headers.origin !== browser.origin(state.port)) {
    throw new LatchError('forbidden_origin');
  }
  if (method === 'OPTIONS') throw new LatchError('forbidden_origin');
  if (!KNOWN_METHODS.has(method)) throw new LatchError('method_not_allowed');

  const { path, rawQuery } = splitTarget(target);
  let match: RouteMatch | undefined;
  let miss: unknown;
  try {
    match = options.router.match(method, path);
  } catch (error) {
    miss = error;
    // The console's pages and reads answer HEAD as GET where no HEAD route is named; A and B
    // answer HEAD only where they name it.
    if (browser !== undefined && method === 'HEAD') {
      try {
        match = options.router.match('GET', path);
      } catch {
        // The HEAD miss stands.
      }
    }
  }
  const credential = admitCredential(options, request, match);
  const { principal } = credential;
  if (principal !== undefined) options.noteCaller?.(principal);
  if (match === undefined) throw miss;
  const { route } = match;
  trace.route = route.pattern;
  if ((route.access === 'owner' || route.access === 'owner_present') && principal?.kind !== 'owner') throw new LatchError('agent_not_permitted');

  const read = await readRequestBody(request, route.bodyBytesMax);
  const { rawBody } = read;
  let { body } = read;
  assertNoCardData({ path, query: rawQuery, body, headerValues: storedHeaderValues(request.headers) });
  // A passphrase in a body that travels on to the cloud would leak it: refused on every such route.
  if (route.forwardsBody === true && isJsonObject(body) && Object.hasOwn(body, 'passphrase')) {
    throw new LatchError('invalid_request', { param: 'passphrase', message: 'The /v1 proxy forwards its body to the cloud: send the passphrase in the Latch-Owner-Passphrase header, or use an owner session.' });
  }
  let ownerPresent = credential.ownerSession !== undefined;
  let presenceCredentialId: string | undefined;
  if (route.access === 'owner_present') {
    // Only a POST's JSON body may carry the passphrase; PUT /policy's body is the policy itself.
    const postBody = method === 'POST' ? body : undefined;
    // The handler never sees a passphrase member, whether or not it was needed.
    if (isJsonObject(postBody) && Object.hasOwn(postBody, 'passphrase')) body = withoutPassphrase(body);
    // Presence is read only where it is needed: with no factor configured, or an owner session,
    // neither header is parsed, so neither can refuse a request that needs no proof.
    if (!ownerPresent && options.presence.configured()) {
      const proof = browser === undefined ? undefined : presenceProof(request.rawHeaders);
      if (proof?.passkey !== undefined) {
        presenceCredentialId = await (browser as BrowserListener).provePasskey(proof.passkey, route, match.params, { method, path, rawBody });
      } else {
        const passphrase = proof?.passphrase ?? inlinePassphrase(request.rawHeaders, postBody).passphrase;
        if (passphrase === undefined) throw new LatchError('owner_presence_required');
        await options.presence.provePassphrase(passphrase);
      }
      ownerPresent = true;
    }
  }

  const context: RequestContext = {
    method,
    path: route.mountPrefix === undefined ? path : path.slice(route.mountPrefix.length),
    query: new URLSearchParams(rawQuery),
    rawQuery,
    params: match.params,
    headers: withoutCredentials(request.headers),
    body,
    rawBody,
    requestId,
    principal,
    ownerPresent,
    ...(presenceCredentialId !== undefined && { presenceCredentialId }),
    ...(credential.end !== undefined && { endOwnerSession: credential.end }),
    ...(credential.consoleSession !== undefined && { consoleSession: credential.consoleSession }),
    userAgent: request.headers['user-agent'] ?? '',
    get signal() {
      return signals.signal;
    },
    get holdSignal() {
      return signals.holdSignal;
    },
  };
  // Past every check: only now may the answer carry the daemon's proofs (proof-headers.ts).
  admitted();
  return route.handler(context);
}

async function writeResult(response: ServerResponse, result: RouteResult, signals: RequestSignals): Promise<void> {
  if (isEventStream(result)) {
    response.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', connection: 'keep-alive' });
    await result.pump((event, data) => response.write(`event: ${event}\ndata: ${data}\n\n`), signals.signal);
    response.end();
    return;
  }
  const headers = withoutCors(result.headers ?? {});
  if (isRawResult(result)) sendRaw(response, result.status, result.rawBody, headers);
  else sendJson(response, result.status, result.body, headers);
}

/**
 * Header values that leave the front door: the Idempotency-Key is sent to the cloud and kept there
 * for a day, Accept-Language is forwarded, and the User-Agent goes into the audit log. A card
 * number in any of them is refused like one in the body.
 */
const STORED_HEADERS = ['idempotency-key', 'accept-language', 'user-agent'] as const;

function storedHeaderValues(headers: IncomingHttpHeaders): string[] {
  return STORED_HEADERS.flatMap((name) => {
    const value = headers[name];
    return typeof value === 'string' ? [value] : [];
  });
}

/** Handlers never see the credential: once the front door has checked it, nothing needs it. */
function withoutCredentials(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const copy: IncomingHttpHeaders = { ...headers };
  delete copy['authorization'];
  delete copy['cookie'];
  delete copy[OWNER_PASSPHRASE_HEADER];
  delete copy[OWNER_PRESENCE_HEADER];
  delete copy[CSRF_HEADER];
  return copy;
}

/** A handler (the proxy above all) may pass on headers; none of them may grant CORS. */
function withoutCors(headers: Record<string, string>): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (!name.toLowerCase().startsWith('access-control-')) kept[name] = value;
  }
  return kept;
}


function logRequest(options: FrontDoorOptions, request: IncomingMessage, response: ServerResponse, requestId: string, startedMs: number, trace: RequestTrace): void {
  // Method is logged only when it is one we know, so a crafted method cannot inject text.
  const method = request.method !== undefined && (KNOWN_METHODS.has(request.method) || request.method === 'OPTIONS') ? request.method : 'other';
  const fields: Record<string, unknown> = {
    listener: options.listener,
    method,
    route: trace.route ?? null,
    status: response.statusCode,
    ms: Math.round((performance.now() - startedMs) * 10) / 10,
    request_id: requestId,
  };
  if (trace.code !== undefined) fields['code'] = trace.code;
  if (!response.writableFinished) fields['aborted'] = true;
  options.log.info('request', fields);
}

/** errorKind names an unexpected error by its class and code only; its message may hold data. */
export function errorKind(error: unknown): string {
  if (!(error instanceof Error)) return typeof error;
  const code = (error as NodeJS.ErrnoException).code;
  const safeCode = typeof code === 'string' && /^[A-Za-z0-9_]{1,64}$/.test(code) ? `:${code}` : '';
  const safeName = /^[A-Za-z0-9_]{1,64}$/.test(error.name) ? error.name : 'Error';
  return `${safeName}${safeCode}`;
}

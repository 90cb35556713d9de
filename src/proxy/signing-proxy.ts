import type { CloudClient } from '../cloud/cloud-client.js';
import type { UpstreamKey } from '../crypto/signing-key.js';
import { errorFromCloud } from '../cloud/cloud-errors.js';
import { refuseWhilePaused, type SigningPause } from '../core/signing-pause.js';
import { readIdempotencyKey } from '../http/idempotency-key.js';
import { randomId } from '../ids/random-id.js';
import { callerOf } from '../http/caller-of.js';
import type { RawResult, RequestContext, Route } from '../http/route.js';
import { forwardedRequestHeaders, returnedResponseHeaders } from './forwarded-headers.js';
import { checkProxyPath } from './proxy-path.js';
import { PROXY_PREFIX_PATTERN, PROXY_ROUTES, stopsOrReads, type ProxyRouteSpec } from './proxy-routes.js';
import { isWireId, wireIdWords } from '../ids/wire-ids.js';
import type { HeldWindowRoute, HeldWindows } from '../core/held-windows.js';
import { invalidRequest, LatchError } from '../errors/latch-error.js';
import { isJsonObject } from '../json/parse-json.js';

/** The proxied body cap (docs/decisions.md §13). */
export const PROXY_BODY_BYTES_MAX = 1024 * 1024;

/**
 * forward sends one allow-listed request (docs/decisions.md §29.1) to the configured cloud origin,
 * signed with the device key, and passes the cloud's status and body back unchanged. Every check
 * runs before anything is signed: the canonical path, the ids in it, the brake, and for a
 * registration the held window. The one translation of the answer is the cloud's
 * device_key_not_recognized about the request's own key, which becomes local_key_not_recognized
 * with its remedy.
 */
async function forward(upstream: ProxyUpstream, spec: ProxyRouteSpec, context: RequestContext): Promise<RawResult> {
  checkProxyPath(context.path, context.rawQuery);
  checkIds(spec, context.params);
  if (spec.purpose !== 'read' && context.rawQuery !== '') throw new LatchError('proxy_route_not_allowed', { message: 'The /v1 proxy forwards a query only on a read.' });
  if (!stopsOrReads(spec.purpose)) refuseWhilePaused(upstream.paused);
  const registered = spec.purpose === 'register_window' ? await takeHeldWindow(upstream, spec, context) : undefined;
  const hasBody = context.rawBody.byteLength > 0;
  const response = await upstream.client.send({
    method: context.method,
    pathAndQuery: context.rawQuery === '' ? context.path : `${context.path}?${context.rawQuery}`,
    ...(hasBody && { body: context.rawBody, contentType: 'application/json' }),
    headers: forwardedRequestHeaders(context.headers),
    idempotencyKey: idempotencyKeyFor(context),
    key: upstream.key,
    caller: { requestId: context.requestId, userAgent: context.userAgent, principal: callerOf(context) },
    signal: context.signal,
  });
  // A held window the cloud refused will never be spent: its budget reservation is given back.
  if (registered !== undefined && response.status >= 400 && response.status < 500) await upstream.ledger.noteStatus(registered, 'failed');
  // A revocation the cloud accepted frees its budget at once (owner-presence §3).
  if (spec.purpose === 'revoke' && response.status === 200) await noteRevoked(upstream, context.params['policy_id'] as string);
  if (response.status === 401) {
    const error = errorFromCloud(response);
    if (error.code === 'local_key_not_recognized') throw error;
  }
  return { status: response.status, rawBody: response.rawBody, headers: returnedResponseHeaders(response.headers) };
}

/**
 * refuseUnlisted answers every request under /v1/ that is no row of PROXY_ROUTES: a path with a
 * percent-escape or another escape shape is 400 invalid_request (param path), anything else is 403
 * proxy_route_not_allowed. Nothing is signed or sent.
 */
function refuseUnlisted(context: RequestContext): never {
  checkProxyPath(context.path, context.rawQuery);
  throw new LatchError('proxy_route_not_allowed', {
    message: 'The /v1 proxy forwards only the cloud routes of its table (docs/api.md, "the signing proxy"), spelled exactly: this method and path are not one of them.',
  });
}

/** checkIds refuses a path whose id segments are not ids of their kind in canonical (lower-case) form. */
function checkIds(spec: ProxyRouteSpec, params: Readonly<Record<string, string>>): void {
  for (const [name, prefix] of Object.entries(spec.params ?? {})) {
    const value = params[name];
    if (value === undefined || !isWireId(prefix, value)) throw invalidRequest(name, `${name} must be ${wireIdWords(prefix)}.`);
  }
}

/**
 * idempotencyKeyFor forwards the caller's Idempotency-Key, and makes one for any other request
 * that is not a GET, so the daemon's own retry cannot apply a request twice.
 */
function idempotencyKeyFor(context: RequestContext): string | undefined {
  const presented = readIdempotencyKey(context.headers);
  if (presented !== undefined) return presented;
  return context.method === 'GET' || context.method === 'HEAD' ? undefined : randomId('idem');
}

/** The cloud client and the device key that signs the proxied request, resolved together per request. */
export interface ProxyUpstream {
  client: CloudClient;
  key: UpstreamKey;
  /** The owner's emergency brake; while pulled, only reads and revocations are forwarded. Required: no absent form lets everything through. */
  paused: () => SigningPause | undefined;
  /**
   * The windows the signing primitives made and hold (docs/decisions.md §21): a registration is
   * forwarded only for one of them. Required, as every safety step (docs/decisions.md §28.6).
   */
  heldWindows: HeldWindows;
  /** The authorization ledger, told when the cloud refuses a held window or a window is revoked. Required. */
  ledger: { noteStatus(policyId: string, state: 'failed' | 'revoked'): Promise<void> };
  nowSeconds: () => number;
  /** Where a failure the proxy does not answer with is reported (the daemon's log). */
  warn: (event: string, fields: Record<string, string>) => void;
}

/**
 * takeHeldWindow admits a registration only for exactly a window this daemon's signing primitives
 * signed and hold, not yet registered (docs/decisions.md §21); the window is taken out of the held
 * set here, so it is forwarded once. Anything else is 403 proxy_route_not_allowed. It returns the
 * window's policy id.
 */
async function takeHeldWindow(upstream: ProxyUpstream, spec: ProxyRouteSpec, context: RequestContext): Promise<string> {
  const body = context.body;
  const jws = isJsonObject(body) && Object.keys(body).length === 1 ? body['jws'] : undefined;
  if (typeof jws !== 'string' || upstream.heldWindows === undefined) throw new LatchError('proxy_route_not_allowed');
  const policyId = await upstream.heldWindows.take(jws, spec.pattern as HeldWindowRoute, (upstream.nowSeconds ?? (() => Math.floor(Date.now() / 1000)))());
  if (policyId === undefined) {
    throw new LatchError('proxy_route_not_allowed', { message: 'The /v1 proxy registers only a window this daemon signed with /sign-card-policy-window or /sign-policy-window and holds unregistered; this one is not (or was already sent).' });
  }
  return policyId;
}

/** noteRevoked records a revocation in the ledger; an id the ledger does not know is no error. */
async function noteRevoked(upstream: ProxyUpstream, policyId: string): Promise<void> {
  try {
    // An id the ledger does not know, or an entry already final, is ignored by noteStatus itself.
    await upstream.ledger.noteStatus(policyId, 'revoked');
  } catch (error) {
    // The cloud revoked it; only the ledger's record of that failed (the daemon's log says so).
    upstream.warn('ledger_revocation_not_recorded', { policy_id: policyId, detail: error instanceof Error ? error.message : String(error) });
  }
}

/**
 * signingProxyRoutes are the /v1/* routes of the A listener: one route per row of PROXY_ROUTES
 * (a GET row also answers HEAD), and one route for everything else under /v1/ that refuses it.
 * Reads and revocations are 'owner'; a registration or allocation is 'owner_present', since it may
 * move money (docs/decisions.md §21). The body is forwarded byte for byte, so presence comes from
 * a session or the Latch-Owner-Passphrase header, never the body.
 */
export function signingProxyRoutes(upstream: () => ProxyUpstream): Route[] {
  const route = (method: Route['method'], pattern: string, access: Route['access'], handler: Route['handler']): Route => ({
    method,
    pattern,
    access,
    bodyBytesMax: PROXY_BODY_BYTES_MAX,
    forwardsBody: true,
    handler,
  });
  const forwarded = PROXY_ROUTES.flatMap((spec) => {
    const access = stopsOrReads(spec.purpose) ? 'owner' : 'owner_present';
    const handler = (context: RequestContext) => forward(upstream(), spec, context);
    const methods: Route['method'][] = spec.method === 'GET' ? ['GET', 'HEAD'] : [spec.method];
    return methods.map((method) => route(method, spec.pattern, access, handler));
  });
  const routes = [route('*', PROXY_PREFIX_PATTERN, 'owner', refuseUnlisted), ...forwarded];
  return routes.sort((x, y) => (x.pattern === y.pattern ? compare(x.method, y.method) : compare(x.pattern, y.pattern)));
}

function compare(x: string, y: string): number {
  return x < y ? -1 : x > y ? 1 : 0;
}

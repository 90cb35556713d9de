import type { CloudClient } from '../cloud/cloud-client.js';
import type { SigningKey } from '../crypto/signing-key.js';
import { errorFromCloud } from '../cloud/cloud-errors.js';
import { refuseWhilePaused, type SigningPause } from '../core/signing-pause.js';
import { readIdempotencyKey } from '../http/idempotency-key.js';
import { randomId } from '../ids/random-id.js';
import { callerOf, type RawResult, type RequestContext, type Route } from '../http/route.js';
import { forwardedRequestHeaders, returnedResponseHeaders } from './forwarded-headers.js';
import { checkProxyPath } from './proxy-path.js';
import type { HeldWindowRoute, HeldWindows } from '../core/held-windows.js';
import { LatchError } from '../errors/latch-error.js';
import { isJsonObject } from '../json/parse-json.js';

/** The proxied body cap (docs/decisions.md §13). */
export const PROXY_BODY_BYTES_MAX = 1024 * 1024;

/**
 * proxyToCloud forwards one local request under /v1/ to the configured cloud origin, signed with
 * the device key, and passes the cloud's status and body back unchanged. The one translation is
 * the cloud's device_key_not_recognized about the request's own key, which becomes
 * local_key_not_recognized with its remedy.
 */
export async function proxyToCloud(upstream: ProxyUpstream, context: RequestContext): Promise<RawResult> {
  checkProxyPath(context.path, context.rawQuery);
  refuseWhilePausedUnlessSafe(upstream, context);
  const registered = await admitWindowChange(upstream, context);
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
  const revoked = context.method === 'POST' ? REVOCATION_PATH.exec(context.path) : null;
  if (revoked !== null && response.status === 200) await noteRevoked(upstream, decodeURIComponent(revoked[1] as string));
  if (response.status === 401) {
    const error = errorFromCloud(response);
    if (error.code === 'local_key_not_recognized') throw error;
  }
  return { status: response.status, rawBody: response.rawBody, headers: returnedResponseHeaders(response.headers) };
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
  key: SigningKey;
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

/** The two requests that register a window, and the route each kind of held window goes to. */
const REGISTRATION_PATHS: ReadonlySet<string> = new Set<HeldWindowRoute>(['/v1/authorizations', '/v1/policy-windows']);
/** Every other path under these changes a window at the cloud. */
const WINDOW_PATH = /^\/v1\/(authorizations|policy-windows)(\/|$)/;

/**
 * admitWindowChange lets a request through the proxy only if it does not register or change a
 * window, with two exceptions: a revocation (it only takes authority away), and the registration
 * of exactly a window this daemon's signing primitives signed and hold, not yet registered — that
 * window is taken out of the held set here, so it is forwarded once. Anything else that would
 * register or change a window is 403 proxy_route_not_allowed. It returns the policy id of a
 * registration it admitted.
 */
async function admitWindowChange(upstream: ProxyUpstream, context: RequestContext): Promise<string | undefined> {
  if (context.method === 'GET' || context.method === 'HEAD') return undefined;
  if (context.method === 'POST' && REVOCATION_PATH.test(context.path)) return undefined;
  if (!WINDOW_PATH.test(context.path)) return undefined;
  if (context.method !== 'POST' || !REGISTRATION_PATHS.has(context.path) || context.rawQuery !== '') throw new LatchError('proxy_route_not_allowed');
  const body = context.body;
  const jws = isJsonObject(body) && Object.keys(body).length === 1 ? body['jws'] : undefined;
  if (typeof jws !== 'string' || upstream.heldWindows === undefined) throw new LatchError('proxy_route_not_allowed');
  const policyId = await upstream.heldWindows.take(jws, context.path as HeldWindowRoute, (upstream.nowSeconds ?? (() => Math.floor(Date.now() / 1000)))());
  if (policyId === undefined) {
    throw new LatchError('proxy_route_not_allowed', { message: 'The /v1 proxy registers only a window this daemon signed with /sign-card-policy-window or /sign-policy-window and holds unregistered; this one is not (or was already sent).' });
  }
  return policyId;
}

/** A revocation only takes authority away, so the brake lets it through. */
const REVOCATION_PATH = /^\/v1\/authorizations\/([^/]+)\/revoke$/;

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

/** refuseWhilePausedUnlessSafe lets reads and revocations through a pulled brake, nothing else. */
function refuseWhilePausedUnlessSafe(upstream: ProxyUpstream, context: RequestContext): void {
  if (context.method === 'GET' || context.method === 'HEAD') return;
  if (context.method === 'POST' && REVOCATION_PATH.test(context.path)) return;
  refuseWhilePaused(upstream.paused);
}

/**
 * signingProxyRoutes are the /v1/* routes of the A listener (docs/decisions.md §21): reads (GET,
 * HEAD) and revocations are 'owner'; every other method is 'owner_present', since it may move
 * money. The body is forwarded byte for byte, so presence comes from a session or the
 * Latch-Owner-Passphrase header, never the body.
 */
export function signingProxyRoutes(upstream: () => ProxyUpstream): Route[] {
  const route = (method: Route['method'], pattern: string, access: Route['access']): Route => ({
    method,
    pattern,
    access,
    bodyBytesMax: PROXY_BODY_BYTES_MAX,
    forwardsBody: true,
    handler: (context) => proxyToCloud(upstream(), context),
  });
  return [
    route('DELETE', '/v1/*', 'owner_present'),
    route('GET', '/v1/*', 'owner'),
    route('HEAD', '/v1/*', 'owner'),
    route('PATCH', '/v1/*', 'owner_present'),
    route('POST', '/v1/*', 'owner_present'),
    route('PUT', '/v1/*', 'owner_present'),
    route('POST', '/v1/authorizations/:policy_id/revoke', 'owner'),
  ];
}

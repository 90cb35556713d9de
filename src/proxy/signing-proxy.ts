import type { CloudClient } from '../cloud/cloud-client.js';
import type { SigningKey } from '../crypto/signing-key.js';
import { errorFromCloud } from '../cloud/cloud-errors.js';
import { refuseWhilePaused, type SigningPause } from '../core/signing-pause.js';
import { readIdempotencyKey } from '../http/idempotency-key.js';
import { randomId } from '../ids/random-id.js';
import { callerOf, type RawResult, type RequestContext, type Route } from '../http/route.js';
import { forwardedRequestHeaders, returnedResponseHeaders } from './forwarded-headers.js';
import { checkProxyPath } from './proxy-path.js';

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
}

/** A revocation only takes authority away, so the brake lets it through. */
const REVOCATION_PATH = /^\/v1\/authorizations\/[^/]+\/revoke$/;

/** refuseWhilePausedUnlessSafe lets reads and revocations through a pulled brake, nothing else. */
function refuseWhilePausedUnlessSafe(upstream: ProxyUpstream, context: RequestContext): void {
  if (context.method === 'GET' || context.method === 'HEAD') return;
  if (context.method === 'POST' && REVOCATION_PATH.test(context.path)) return;
  refuseWhilePaused(upstream.paused);
}

/** signingProxyRoute is the `any /v1/*` route of the A listener. */
export function signingProxyRoute(upstream: () => ProxyUpstream): Route {
  return {
    method: '*',
    pattern: '/v1/*',
    access: 'owner',
    bodyBytesMax: PROXY_BODY_BYTES_MAX,
    handler: (context) => proxyToCloud(upstream(), context),
  };
}

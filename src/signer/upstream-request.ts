/**
 * Signing an upstream request (RFC 9421) to the cloud, one of the enumerated cloud calls only
 * (cloud-calls.ts). The cloud client writes its audit line (`sign_request`, or the window's line
 * with method and path) and waits for it to be on disk before the request leaves (docs/decisions.md
 * §11, §16.3).
 */
import { randomBytes } from 'node:crypto';
import { contentDigest } from '../crypto/content-digest.js';
import { toBase64, toBase64Url, utf8 } from '../crypto/base64url.js';
import { serializeSignatureParams, signatureBase } from '../crypto/http-signature.js';
import { HTTP_SIGNATURE_TAG } from '../crypto/signature-purposes.js';
import type { SigningKey, UpstreamRequestParts } from '../crypto/signing-key.js';
import { assertNoCardData } from '../validate/card-data-guard.js';
import { signBytes } from './held-keys.js';

/** The RFC 9421 label on every upstream request (docs/decisions.md §6). */
export const SIGNATURE_LABEL = 'latch';

/** How long an upstream signature stays valid: expires = created + 300 s. */
export const SIGNATURE_LIFETIME_SECONDS = 300;

/**
 * upstreamHeaders returns Content-Type and Content-Digest (with a body), Idempotency-Key (when
 * there is one), Signature-Input and Signature for one upstream request, the caller having checked
 * that it is a call this key signs. The Idempotency-Key is covered because the cloud applies a
 * request once per key: a man in the middle who could strip it would turn the daemon's own retries
 * into repeated effects. Each call draws a fresh nonce, so a retry is a new signature. A path or
 * query carrying card data is never signed or sent (`card_data_not_accepted`), whoever built the URL.
 */
export function upstreamHeaders(key: SigningKey, parts: UpstreamRequestParts, nowSeconds: number): Record<string, string> {
  assertNoCardData({ path: parts.url.pathname, query: parts.url.search });
  const headers: Record<string, string> = {};
  const components = ['@method', '@authority', '@path', '@query'];
  if (parts.body !== undefined) {
    headers['content-type'] = parts.contentType ?? 'application/json';
    headers['content-digest'] = contentDigest(parts.body);
    components.push('content-type', 'content-digest');
  }
  if (parts.idempotencyKey !== undefined) {
    headers['idempotency-key'] = parts.idempotencyKey;
    components.push('idempotency-key');
  }
  const request = {
    method: parts.method,
    authority: parts.url.host,
    path: parts.url.pathname,
    query: parts.url.search.startsWith('?') ? parts.url.search.slice(1) : '',
    headers,
  };
  const params = {
    created: nowSeconds,
    expires: nowSeconds + SIGNATURE_LIFETIME_SECONDS,
    keyid: key.keyId,
    alg: 'ed25519',
    nonce: toBase64Url(randomBytes(16)),
    tag: HTTP_SIGNATURE_TAG.upstreamRequest,
  };
  const serialized = serializeSignatureParams(components, params);
  const base = signatureBase(request, components, serialized);
  if (base === undefined) throw new Error('upstreamHeaders: a covered component is missing from the request');
  const signature = signBytes(key, utf8(base));
  return { ...headers, 'signature-input': `${SIGNATURE_LABEL}=${serialized}`, signature: `${SIGNATURE_LABEL}=:${toBase64(signature)}:` };
}

import { randomBytes } from 'node:crypto';
import { contentDigest } from '../crypto/content-digest.js';
import { toBase64Url } from '../crypto/base64url.js';
import { HTTP_SIGNATURE_TAG } from '../crypto/signature-purposes.js';
import { assertNoCardData } from '../validate/card-data-guard.js';
import type { SigningKey } from '../crypto/signing-key.js';
import { signUpstreamRequest } from '../signer/index.js';

/** The RFC 9421 label on every upstream request (docs/decisions.md §6). */
export const SIGNATURE_LABEL = 'latch';

/** How long an upstream signature stays valid: expires = created + 300 s. */
export const SIGNATURE_LIFETIME_SECONDS = 300;

export interface UpstreamRequestParts {
  method: string;
  url: URL;
  body: Uint8Array | undefined;
  contentType: string | undefined;
  /** The Idempotency-Key sent with the request, if any; the signature covers it. */
  idempotencyKey: string | undefined;
}

/**
 * signatureHeaders returns Content-Type and Content-Digest (with a body), Idempotency-Key (when
 * there is one), Signature-Input and Signature for one upstream request. The key is covered
 * because the cloud applies a request once per key: a man in the middle who could strip it would
 * turn the daemon's own retries into repeated effects. Each call draws a fresh nonce, so a retry
 * is a new signature. A path or query carrying card data is never signed or sent
 * (`card_data_not_accepted`), whoever built the URL.
 */
export function signatureHeaders(parts: UpstreamRequestParts, key: SigningKey, nowSeconds: number): Record<string, string> {
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
  const signed = signUpstreamRequest(
    key,
    {
      method: parts.method,
      authority: parts.url.host,
      path: parts.url.pathname,
      query: parts.url.search.startsWith('?') ? parts.url.search.slice(1) : '',
      headers,
    },
    SIGNATURE_LABEL,
    components,
    {
      created: nowSeconds,
      expires: nowSeconds + SIGNATURE_LIFETIME_SECONDS,
      keyid: key.keyId,
      alg: 'ed25519',
      nonce: toBase64Url(randomBytes(16)),
      tag: HTTP_SIGNATURE_TAG.upstreamRequest,
    },
  );
  return { ...headers, ...signed };
}

import type { IncomingHttpHeaders } from 'node:http';

/**
 * Only these request headers travel upstream. An allow-list rather than a deny-list: the local
 * bearer token, cookies, client-supplied Signature / Signature-Input / Content-Digest, hop-by-hop
 * headers and anything else are dropped by construction. Content-Type is not among them: the
 * proxy sets the content type of a body itself (the front door admits only JSON) and signs it,
 * while a request without a body has nothing to type, and a caller's value there would travel
 * unchecked and unsigned.
 */
const FORWARDED_REQUEST_HEADERS = ['accept-language'] as const;

/** Only these response headers come back from the cloud; Location is dropped (no redirects). */
const RETURNED_RESPONSE_HEADERS = ['content-type', 'retry-after', 'idempotent-replayed'] as const;

/** forwardedRequestHeaders picks the allowed headers of a local request. */
export function forwardedRequestHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of FORWARDED_REQUEST_HEADERS) {
    const value = headers[name];
    if (typeof value === 'string') out[name] = value;
  }
  return out;
}

/** returnedResponseHeaders picks the allowed headers of a cloud response. */
export function returnedResponseHeaders(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of RETURNED_RESPONSE_HEADERS) {
    const value = headers.get(name);
    if (value !== null) out[name] = value;
  }
  return out;
}

import type { ServerResponse } from 'node:http';
import { errorBody } from '../errors/error-body.js';
import { LatchError } from '../errors/latch-error.js';
import { MethodNotAllowed } from './router.js';

/** Headers on every response: no caching of payment data, no content sniffing, and never CORS. */
const BASE_HEADERS: Readonly<Record<string, string>> = {
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
};

/** sendJson writes a JSON response with the base security headers. */
export function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    ...BASE_HEADERS,
    ...headers,
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(text)),
  });
  response.end(text);
}

/** sendRaw writes bytes unchanged (the signing proxy's upstream body) with the base headers. */
export function sendRaw(response: ServerResponse, status: number, rawBody: Uint8Array, headers: Record<string, string>): void {
  response.writeHead(status, { ...headers, ...BASE_HEADERS, 'content-length': String(rawBody.byteLength) });
  response.end(rawBody);
}

/**
 * sendError writes the common error body of docs/decisions.md §7. Anything that is not a LatchError is
 * a bug: it answers `internal_error` without any detail of the exception.
 */
export function sendError(response: ServerResponse, error: unknown, requestId: string, options: { close?: boolean; remedy?: boolean } = {}): void {
  const latchError = error instanceof LatchError ? error : new LatchError('internal_error');
  const headers: Record<string, string> = {};
  if (latchError.code === 'missing_bearer_token') headers['www-authenticate'] = 'Bearer';
  if (latchError.code === 'invalid_bearer_token') headers['www-authenticate'] = 'Bearer error="invalid_token"';
  if (latchError.retryAfterSeconds !== undefined) headers['retry-after'] = String(latchError.retryAfterSeconds);
  if (latchError instanceof MethodNotAllowed) headers['allow'] = latchError.allow.join(', ');
  if (options.close === true) headers['connection'] = 'close';
  if (response.headersSent) {
    response.destroy();
    return;
  }
  sendJson(response, latchError.status, errorBody(latchError, requestId, { ...(options.remedy !== undefined && { remedy: options.remedy }) }), headers);
}

import type { IncomingHttpHeaders } from 'node:http';
import { LatchError } from '../errors/latch-error.js';

const IDEMPOTENCY_KEY = /^[\x21-\x7e](?:[\x20-\x7e]{0,253}[\x21-\x7e])?$/;

/**
 * readIdempotencyKey returns the request's Idempotency-Key (1–255 printable ASCII characters,
 * docs/decisions.md §9), undefined when absent, or refuses a malformed one.
 */
export function readIdempotencyKey(headers: IncomingHttpHeaders): string | undefined {
  const value = headers['idempotency-key'];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !IDEMPOTENCY_KEY.test(value)) {
    throw new LatchError('invalid_request', { param: 'Idempotency-Key', message: 'Idempotency-Key must be 1 to 255 printable ASCII characters.' });
  }
  return value;
}

/** Small assertions shared by the end-to-end tests. */
import assert from 'node:assert/strict';
import type { HttpAnswer } from './stack.js';

/** assertKeys checks that an object has exactly these keys (order ignored). */
export function assertKeys(value: unknown, keys: string[], what = 'object'): void {
  assert.ok(typeof value === 'object' && value !== null, `${what} is not an object`);
  assert.deepEqual(Object.keys(value).sort(), [...keys].sort(), `${what} has other keys`);
}

/** secondsOf reads an ISO 8601 UTC time written without fractions (as Latch writes them). */
export function secondsOf(iso: unknown): number {
  assert.equal(typeof iso, 'string');
  assert.match(iso as string, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
  return Date.parse(iso as string) / 1000;
}

/** assertError checks an error answer: status, code, optional param, and the common body shape. */
export function assertError(answer: HttpAnswer, status: number, code: string, param?: string): void {
  assert.equal(answer.status, status, `expected ${status} ${code}, got ${answer.status} ${answer.text}`);
  assert.equal(answer.body?.error?.code, code, answer.text);
  assert.equal(typeof answer.body.error.message, 'string');
  assert.match(answer.body.error.request_id, /^req_/);
  if (param !== undefined) assert.equal(answer.body.error.param, param, answer.text);
}

/** decodeJwsPayload reads a compact JWS's payload without verifying it. */
export function decodeJwsPayload(jws: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(jws.split('.')[1] ?? '', 'base64url').toString('utf8')) as Record<string, unknown>;
}

/** Money as Variant A writes it: a decimal string with two decimals. */
export const MONEY = /^(?:0|[1-9][0-9]*)\.[0-9]{2}$/;

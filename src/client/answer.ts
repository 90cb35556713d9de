import { LatchClientError } from './client-errors.js';
import type { TransportAnswer } from './http-transport.js';

// Error text from the daemon (or the cloud behind the proxy) is shown to people and agents: bound it.
const ERROR_TEXT_CHARS_MAX = 500;

/** The daemon's error fields, read loosely from `{"error": {...}}`. */
export interface ErrorFields {
  code: string;
  message?: string;
  param?: string;
  requestId?: string;
  /** The policy rule or limit that decided a policy_denied. */
  rule?: string;
  /** policy_denied, approval_denied: why the policy decided, in words. */
  reasons?: string[];
  /** approval_denied: the owner's reason, or null. */
  reason?: string | null;
}

// A policy's reasons are one per rule, budget or velocity limit that contributed; bound them.
const REASONS_MAX = 32;

/** parseAnswerJson parses an answer's body, or returns undefined when it is not JSON. */
export function parseAnswerJson(answer: TransportAnswer): unknown {
  if (answer.text === '') return undefined;
  try {
    return JSON.parse(answer.text) as unknown;
  } catch {
    return undefined;
  }
}

/** errorFields returns the common error body's fields (docs/decisions.md §7), or undefined when the body has none. */
export function errorFields(body: unknown): ErrorFields | undefined {
  if (!isRecord(body) || !isRecord(body['error'])) return undefined;
  const error = body['error'];
  const code = error['code'];
  if (typeof code !== 'string' || !/^[a-z][a-z0-9_]{0,63}$/.test(code)) return undefined;
  const fields: ErrorFields = { code };
  if (typeof error['message'] === 'string') fields.message = cleanText(error['message']);
  if (typeof error['param'] === 'string') fields.param = cleanText(error['param']).slice(0, 64);
  if (typeof error['request_id'] === 'string') fields.requestId = cleanText(error['request_id']).slice(0, 64);
  if (typeof error['rule'] === 'string') fields.rule = cleanText(error['rule']).slice(0, 64);
  const reasons = error['reasons'];
  if (Array.isArray(reasons)) fields.reasons = reasons.filter((reason): reason is string => typeof reason === 'string').slice(0, REASONS_MAX).map(cleanText);
  if (typeof error['reason'] === 'string') fields.reason = cleanText(error['reason']);
  else if (error['reason'] === null) fields.reason = null;
  return fields;
}

/**
 * interpretAnswer returns the body of a successful answer and throws a LatchClientError for any
 * other: the daemon's own error code when it sent the common error body, `invalid_response`
 * when the answer is not the Latch API (another program on the port, a truncated body).
 */
export function interpretAnswer(answer: TransportAnswer, idempotencyKey: string | undefined): Record<string, unknown> {
  const body = parseAnswerJson(answer);
  const extra = idempotencyKey === undefined ? {} : { idempotencyKey };
  if (answer.status >= 200 && answer.status < 300) {
    if (!isRecord(body)) throw invalidResponse(answer.status, 'The daemon answered without a JSON object.', extra);
    return body;
  }
  const fields = errorFields(body);
  if (fields === undefined) throw invalidResponse(answer.status, `The daemon answered HTTP ${answer.status} without a Latch error body.`, extra);
  throw new LatchClientError({
    code: fields.code,
    status: answer.status,
    ...(fields.message !== undefined && { message: fields.message }),
    ...(fields.param !== undefined && { param: fields.param }),
    ...(fields.requestId !== undefined && { requestId: fields.requestId }),
    ...(fields.rule !== undefined && { rule: fields.rule }),
    ...(fields.reasons !== undefined && { reasons: fields.reasons }),
    ...(fields.reason !== undefined && { reason: fields.reason }),
    ...extra,
  });
}

/** expectShape checks that a body has the named fields, so callers never read a different API as ours. */
export function expectShape<T>(body: Record<string, unknown>, fields: readonly string[]): T {
  for (const field of fields) {
    if (!Object.hasOwn(body, field)) throw invalidResponse(200, `The daemon's answer lacks the field ${field}.`, {});
  }
  return body as T;
}

/** isRecord reports whether a value is a plain JSON object. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function invalidResponse(status: number, message: string, extra: { idempotencyKey?: string }): LatchClientError {
  return new LatchClientError({ code: 'invalid_response', status, message, ...extra });
}

function cleanText(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f]/g, ' ').slice(0, ERROR_TEXT_CHARS_MAX);
}

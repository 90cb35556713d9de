import { ERROR_RULES, type ErrorCode } from './error-rules.js';

/**
 * LatchError is an expected failure with a stable code from the error table. Callers switch on
 * `code`, never on `message`. Messages are written by us and never carry secrets or card data.
 */
export class LatchError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly param: string | undefined;
  /** Only policy_denied: the policy rule or limit that decided (docs/decisions.md §15.3). */
  readonly rule: string | undefined;
  /** policy_denied and approval_denied: why the policy decided, in words, as the 202 and POST /policy/check carry them. */
  readonly reasons: readonly string[] | undefined;
  /** Only approval_denied: the owner's reason for denying (null when they gave none or did not decide). */
  readonly reason: string | null | undefined;
  /** When a retry can succeed, in seconds (sent as Retry-After): too_many_attempts' lockout. */
  readonly retryAfterSeconds: number | undefined;

  constructor(
    code: ErrorCode,
    options: { message?: string; param?: string; status?: number; rule?: string; reasons?: readonly string[]; reason?: string | null; retryAfterSeconds?: number } = {},
  ) {
    const spec = ERROR_RULES[code];
    super(options.message ?? spec.message);
    this.name = 'LatchError';
    this.code = code;
    this.param = options.param;
    this.rule = options.rule;
    this.reasons = options.reasons;
    this.reason = options.reason;
    this.retryAfterSeconds = options.retryAfterSeconds;
    const alternates: readonly number[] = 'alternateStatuses' in spec ? spec.alternateStatuses : [];
    if (options.status !== undefined && options.status !== spec.status && !alternates.includes(options.status)) {
      throw new Error(`status ${options.status} is not allowed for ${code}`);
    }
    this.status = options.status ?? spec.status;
  }
}

/** invalidRequest is the common `invalid_request` error naming the offending field. */
export function invalidRequest(param: string, message: string): LatchError {
  return new LatchError('invalid_request', { param, message });
}

/**
 * messageNaming rewrites a message that begins with a field's name ("merchant_name must be a
 * domain …") to begin with the name the caller used instead ("--merchant must be …"), so that every
 * surface names its own field or flag. Other messages are returned as they are.
 */
export function messageNaming(message: string, field: string, name: string): string {
  return message.startsWith(`${field} `) ? `${name}${message.slice(field.length)}` : message;
}

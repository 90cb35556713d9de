/**
 * The common error body (docs/decisions.md §7) of a LatchError, with its code's remedy from the
 * error table's text. Apart from latch-error.ts, which the audited core imports: the core refuses
 * with a code, and the surfaces that answer (the HTTP server, the sandbox cloud, the CLI) add what
 * a person reads to act on it (docs/decisions.md §43).
 */
import { ERROR_TABLE, type ErrorCode } from './error-table.js';
import type { LatchError } from './latch-error.js';

export interface ErrorBody {
  error: { code: string; message: string; remedy?: string; param?: string; rule?: string; reasons?: string[]; reason?: string | null; request_id?: string };
}

/**
 * errorBody returns the common error body of docs/decisions.md §7. The daemon's bodies carry the
 * code's `remedy` (what to do next, the sentence agents are told to show the user, §31.4); the
 * sandbox cloud's do not (`remedy: false`), as the cloud API's errors are code and message only.
 */
export function errorBody(latchError: LatchError, requestId?: string, options: { remedy?: boolean } = {}): ErrorBody {
  const error: ErrorBody['error'] = { code: latchError.code, message: latchError.message };
  if (options.remedy !== false) error.remedy = remedyFor(latchError.code);
  if (latchError.param !== undefined) error.param = latchError.param;
  if (latchError.rule !== undefined) error.rule = latchError.rule;
  if (latchError.reasons !== undefined) error.reasons = [...latchError.reasons];
  if (latchError.reason !== undefined) error.reason = latchError.reason;
  if (requestId !== undefined) error.request_id = requestId;
  return { error };
}

/** remedyFor returns the remedy text of a code. */
export function remedyFor(code: ErrorCode): string {
  return ERROR_TABLE[code].remedy;
}

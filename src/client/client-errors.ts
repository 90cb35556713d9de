/**
 * The errors a Latch client reports. Codes the daemon sends come from the one server table
 * (src/errors/error-table.ts); the few failures that happen before the daemon can answer at all
 * have client-only codes in CLIENT_ERROR_TABLE below. They are kept out of the server table on
 * purpose: that table lists what the daemon and the cloud can put on the wire (README's error
 * table is checked against it), and no daemon ever answers "daemon_unreachable".
 */
import { ERROR_TABLE, isErrorCode, type ErrorCode } from '../errors/error-table.js';

/** One client-only failure: its class, default message and remedy. */
export interface ClientErrorSpec {
  readonly specClass: string;
  readonly message: string;
  readonly remedy: string;
}

export const CLIENT_ERROR_TABLE = {
  daemon_unreachable: {
    specClass: 'Local daemon unavailable',
    message: 'The Latch daemon is not reachable.',
    remedy: 'Start the daemon (latch daemon, or latch start for the sandbox) and check LATCH_URL. This is a local availability problem, not a payment failure.',
  },
  daemon_no_answer: {
    specClass: 'Local daemon unavailable',
    message: 'The connection to the daemon ended before an answer arrived.',
    remedy: 'The request may have taken effect. Check latch transactions before trying again, and reuse the same Idempotency-Key if you do.',
  },
  daemon_not_verified: {
    specClass: 'Local daemon unavailable',
    message: "The program on the daemon's address did not prove it is the Latch daemon; the token was not sent.",
    remedy:
      "Something else may be listening on the daemon's address (another user's program can take the port while the daemon is down). Find it (ss -ltnp or lsof -i on the port), stop it, then start the daemon. If a Latch daemon with another data directory runs there, set LATCH_HOME to its data directory.",
  },
  token_unreadable: {
    specClass: 'Missing bearer token',
    message: 'The daemon token file cannot be used.',
    remedy: 'Fix the daemon_token file in the Latch data directory (it must exist, be owned by you and have mode 0600).',
  },
  invalid_response: {
    specClass: 'A bug',
    message: 'The daemon answered with something that is not the Latch API.',
    remedy: 'Check that LATCH_URL points at a Latch daemon (Variant A, default port 7723) of the same version.',
  },
} as const satisfies Record<string, ClientErrorSpec>;

export type ClientErrorCode = keyof typeof CLIENT_ERROR_TABLE;

/**
 * Every code a LatchClientError may carry: the server's codes, the client-only codes, and any
 * other string, because a newer daemon may add codes (docs/decisions.md §14: additive changes in v1).
 */
// `string & {}` keeps editor completion for the known codes while accepting future ones.
export type LatchClientErrorCode = ErrorCode | ClientErrorCode | (string & {});

/** isClientErrorCode reports whether code is one of the client-only codes. */
export function isClientErrorCode(code: string): code is ClientErrorCode {
  return Object.hasOwn(CLIENT_ERROR_TABLE, code);
}

/** specClassOf returns the error class of a code (docs/errors.md), or "Unknown" for a code this client does not know. */
export function specClassOf(code: string): string {
  if (isErrorCode(code)) return ERROR_TABLE[code].specClass;
  if (isClientErrorCode(code)) return CLIENT_ERROR_TABLE[code].specClass;
  return 'Unknown';
}

/** remedyOf returns the remedy of a code; an unknown code gets a generic one. */
export function remedyOf(code: string): string {
  if (isErrorCode(code)) return ERROR_TABLE[code].remedy;
  if (isClientErrorCode(code)) return CLIENT_ERROR_TABLE[code].remedy;
  return 'Read the message; the daemon may be newer than this client.';
}

/** What a LatchClientError is built from. */
export interface LatchClientErrorFields {
  code: LatchClientErrorCode;
  /** The HTTP status of the daemon's answer, or null when there was no answer. */
  status: number | null;
  message?: string;
  /** A remedy more specific than the table's (for example the exact chmod command). */
  remedy?: string;
  /** A class more fitting than the table's where the client knows better (the owner, not an agent, lacks presence). */
  specClass?: string;
  param?: string;
  requestId?: string;
  /** The Idempotency-Key the request was sent with, so that a caller can retry it safely. */
  idempotencyKey?: string;
  /** For policy_denied: the policy rule or limit that decided. */
  rule?: string;
  /** For policy_denied and approval_denied: why the policy decided, in words. */
  reasons?: readonly string[];
  /** For approval_denied: the owner's reason (null when none was given). */
  reason?: string | null;
}

/**
 * LatchClientError is every failure of a client call. Callers switch on `code` (never on
 * `message`); `remedy` says what to do next, from the error table. It never carries the token.
 */
export class LatchClientError extends Error {
  readonly code: LatchClientErrorCode;
  readonly status: number | null;
  readonly remedy: string;
  readonly specClass: string;
  readonly param: string | undefined;
  readonly requestId: string | undefined;
  readonly idempotencyKey: string | undefined;
  /** For policy_denied: the policy rule or limit that decided. */
  readonly rule: string | undefined;
  /** For policy_denied and approval_denied: why the policy decided, in words. */
  readonly reasons: readonly string[] | undefined;
  /** For approval_denied: the owner's reason (null when none was given). */
  readonly reason: string | null | undefined;

  constructor(fields: LatchClientErrorFields) {
    super(fields.message ?? defaultMessage(fields.code));
    this.name = 'LatchClientError';
    this.code = fields.code;
    this.status = fields.status;
    this.remedy = fields.remedy ?? remedyOf(fields.code);
    this.specClass = fields.specClass ?? specClassOf(fields.code);
    this.param = fields.param;
    this.requestId = fields.requestId;
    this.idempotencyKey = fields.idempotencyKey;
    this.rule = fields.rule;
    this.reasons = fields.reasons;
    this.reason = fields.reason;
  }

  /** toJSON is the error as the CLI's --json output and the MCP bridge show it. */
  toJSON(): Record<string, unknown> {
    const out: Record<string, unknown> = { code: this.code, message: this.message, spec_class: this.specClass, remedy: this.remedy, status: this.status };
    if (this.param !== undefined) out['param'] = this.param;
    if (this.requestId !== undefined) out['request_id'] = this.requestId;
    if (this.idempotencyKey !== undefined) out['idempotency_key'] = this.idempotencyKey;
    if (this.rule !== undefined) out['rule'] = this.rule;
    if (this.reasons !== undefined) out['reasons'] = [...this.reasons];
    if (this.reason !== undefined) out['reason'] = this.reason;
    return out;
  }
}

function defaultMessage(code: string): string {
  if (isErrorCode(code)) return ERROR_TABLE[code].message;
  if (isClientErrorCode(code)) return CLIENT_ERROR_TABLE[code].message;
  return 'The daemon refused the request.';
}

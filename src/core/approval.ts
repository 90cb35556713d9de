/**
 * A pending approval (docs/decisions.md §15.4): the exact request a policy answered `ask` for, who asked,
 * the rule and reasons, and — once the owner decided — the outcome. The approval is the only
 * place the request lives until it is signed, so nothing about it can change between the ask and
 * the signature.
 */
import type { Ap2MandateRecord } from './decision-record.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import type { AuthorizationRequest } from './authorization-request.js';
import type { Authorization } from './model.js';
import type { Principal } from './principal.js';
import type { SignedWindow } from './window-payload.js';

/** The states of an approval; only `pending_approval` can still change, and only once (docs/decisions.md §29.6). */
export const APPROVAL_STATUSES = ['pending_approval', 'approved', 'denied', 'expired', 'failed'] as const;
export type ApprovalStatus = (typeof APPROVAL_STATUSES)[number];

/** Without a policy setting, an approval not decided within 15 minutes expires. */
export const APPROVAL_TTL_SECONDS_DEFAULT = 900;

/** One approval, as the daemon keeps it. */
export interface Approval {
  id: string;
  status: ApprovalStatus;
  principal: Principal;
  request: AuthorizationRequest;
  rule: string;
  reasons: string[];
  createdAtSeconds: number;
  expiresAtSeconds: number;
  decidedAtSeconds: number | null;
  /** The owner's reason for a denial. */
  reason: string | null;
  /** The authorization created by approving (status `approved`). */
  authorization: Authorization | null;
  /** The window signed by approving; it went to the cloud and holds no secret. */
  window: SignedWindow | null;
  /** Why approving failed (status `failed`): the error's code and message, as the cloud gave them. */
  error: { code: string; message: string } | null;
  /** The SHA-256 (hex) of the request's canonical JSON: what the audit lines name. */
  requestSha256: string;
  /**
   * The Idempotency-Key the window is signed and registered under when approved: the caller's,
   * or one made at creation, so that approving again after a crash re-sends the same window.
   */
  idempotencyKey: string;
  /** Whether idempotencyKey is the caller's own (a retry of their POST finds this approval). */
  callerKey: boolean;
  /** The fingerprint of the caller's POST, for telling a retry from a reused key. */
  fingerprintSha256: string;
  /**
   * An approved AP2 mandate request's open mandates, read from the ledger entry when the approval
   * is answered (never stored with the approval: the ledger holds them once).
   */
  mandates?: Ap2MandateRecord;
}

/** canonicalJson writes a JSON value with object keys sorted at every depth, so equal values hash equally. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    const fields = Object.keys(record)
      .filter((name) => record[name] !== undefined)
      .sort()
      .map((name) => `${JSON.stringify(name)}:${canonicalJson(record[name])}`);
    return `{${fields.join(',')}}`;
  }
  return JSON.stringify(value);
}

/** requestSha256 is the SHA-256 (hex) of an authorization request's canonical JSON. */
export function requestSha256(request: AuthorizationRequest): string {
  return bytesToHex(sha256(new TextEncoder().encode(canonicalJson(request))));
}

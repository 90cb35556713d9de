/**
 * The approval object on the wire (docs/decisions.md §15.4), the same on both listeners, and the
 * `Prefer: wait=N` header (RFC 7240) that holds an answer for the owner's decision.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Approval } from '../core/approval.js';
import type { AuthorizationRequest } from '../core/authorization-request.js';
import { APPROVAL_WAIT_SECONDS_MAX } from '../core/approvals.js';
import { principalName } from '../core/principal.js';
import { formatMinor } from '../money/amount.js';
import { isoSeconds } from '../time/iso-time.js';
import { authorizationA } from './authorization-shape.js';
import { ap2TermsWire, mandatesWire } from '../ap2/mandate-wire.js';
import { x402TermsWire } from '../x402/x402-wire.js';

/** How often a caller is told to look again while an approval is pending (Retry-After). */
export const APPROVAL_POLL_SECONDS = 5;

/** approvalWire is the approval object: the exact request, the caller, the rule, and the decision so far. */
export function approvalWire(approval: Approval): Record<string, unknown> {
  const out: Record<string, unknown> = {
    approval_id: approval.id,
    status: approval.status,
    agent: principalName(approval.principal),
    request: requestWire(approval.request),
    request_sha256: approval.requestSha256,
    rule: approval.rule,
    reasons: approval.reasons,
    created_at: isoSeconds(approval.createdAtSeconds),
    expires_at: isoSeconds(approval.expiresAtSeconds),
    decided_at: approval.decidedAtSeconds === null ? null : isoSeconds(approval.decidedAtSeconds),
  };
  if (approval.status === 'approved' && approval.authorization !== null) out['authorization'] = authorizationA(approval.authorization);
  if (approval.mandates !== undefined && approval.authorization !== null) out['ap2_mandates'] = mandatesWire(approval.authorization.policyId, approval.mandates);
  if (approval.status === 'denied') out['reason'] = approval.reason;
  if (approval.status === 'failed') out['error'] = approval.error;
  return out;
}

/** requestWire is the stored request in Variant A's vocabulary (amounts as decimal text). */
export function requestWire(request: AuthorizationRequest): Record<string, unknown> {
  const base = {
    kind: request.kind,
    card_id: request.cardId,
    merchant_name: request.merchant,
    amount: formatMinor(request.amountMinor),
    currency: request.currency,
    // The owner sees the caller's purpose with the terms it will be signed with.
    ...(request.reference !== undefined && { reference: request.reference }),
  };
  switch (request.kind) {
    case 'one_time':
      return { ...base, authorization_type: request.authorizationType, ttl_seconds: request.ttlSeconds };
    case 'merchant_verification':
      return { ...base, authorization_type: 'ceiling', ttl_seconds: request.ttlSeconds };
    case 'x402':
      // The owner approves the exact requirements the payment will carry.
      return { ...base, authorization_type: request.x402.requirements.scheme === 'upto' ? 'ceiling' : 'exact', x402: x402TermsWire(request) };
    case 'ap2_mandate':
      // The owner approves the exact terms the mandates will carry, the agent's key included.
      return { ...base, authorization_type: 'ceiling', ttl_seconds: request.ttlSeconds, ap2: ap2TermsWire(request) };
    case 'recurring':
      return {
        ...base,
        authorization_type: request.authorizationType,
        interval: request.interval,
        interval_count: request.intervalCount,
        starts_at: request.startsAt === null ? null : isoSeconds(request.startsAt),
        ends_at: request.endsAt === null ? null : isoSeconds(request.endsAt),
        max_charges: request.maxCharges,
      };
  }
}

/** pendingAnswer is the 202 Accepted answer for a pending approval, with Retry-After. */
export function pendingAnswer(approval: Approval, nowSeconds: number) {
  const retryAfter = Math.max(1, Math.min(APPROVAL_POLL_SECONDS, approval.expiresAtSeconds - nowSeconds));
  return { status: 202, body: approvalWire(approval), headers: { 'retry-after': String(retryAfter) } };
}

/**
 * preferWaitSeconds reads `Prefer: wait=N` (RFC 7240 §4.3) among any other preferences: N is
 * whole seconds, clamped to 0..60; a malformed value, or none, is 0 (answer at once), as RFC
 * 7240 lets a server ignore a preference it cannot honour.
 */
export function preferWaitSeconds(headers: IncomingHttpHeaders): number {
  const raw = headers['prefer'];
  const text = Array.isArray(raw) ? raw.join(',') : raw;
  if (text === undefined || text.length > 1024) return 0;
  for (const preference of text.split(/[,;]/)) {
    const match = /^\s*wait\s*=\s*"?([0-9]{1,9})"?\s*$/i.exec(preference);
    if (match !== null) return Math.min(Number(match[1]), APPROVAL_WAIT_SECONDS_MAX);
  }
  return 0;
}

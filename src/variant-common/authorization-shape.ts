/**
 * The scoped authorization object on the wire (docs/decisions.md §4), in Variant A's vocabulary:
 * what A's routes answer and what the approval object, the same on both listeners, carries once
 * approved. It lives here, beside the approval shape, so that shared code never reaches into
 * one variant's folder; src/variant-a/shapes.ts re-exports it.
 */
import type { Authorization } from '../core/model.js';
import { formatMinor } from '../money/amount.js';
import { isoSeconds } from '../time/iso-time.js';

/** authorizationA is the scoped authorization object (test/client/wire-types.test.ts holds the client's type to it). */
export function authorizationA(authorization: Authorization) {
  const r = authorization.recurring;
  return {
    policy_id: authorization.policyId,
    authorization_id: authorization.policyId,
    card_id: authorization.cardId,
    merchant_name: authorization.merchant,
    amount: formatMinor(authorization.amountMinor),
    currency: authorization.currency,
    authorization_type: authorization.authorizationType,
    kind: authorization.kind,
    expires_at: isoSeconds(authorization.expiresAt),
    status: authorization.status,
    created_at: isoSeconds(authorization.createdAt),
    transaction_id: authorization.transactionId,
    ...(r !== null && {
      interval: r.interval,
      interval_count: r.intervalCount,
      max_charges: r.maxCharges,
      current_period_start: r.currentPeriodStart === null ? null : isoSeconds(r.currentPeriodStart),
      current_period_end: r.currentPeriodEnd === null ? null : isoSeconds(r.currentPeriodEnd),
    }),
  };
}

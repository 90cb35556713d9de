/**
 * Variant A's wire shapes (docs/decisions.md §4): every money value is a decimal string with the
 * currency's decimals, times are ISO 8601 UTC.
 */
import type { Allocation, Authorization, Card, PolicyWindowView, Transaction, Wallet } from '../core/model.js';
import { formatMinor } from '../money/amount.js';
import { isoSeconds } from '../time/iso-time.js';

const minorOrNull = (minor: number | null): string | null => (minor === null ? null : formatMinor(minor));

/**
 * cardSummaryA is a card in GET /cards. `available` is what new authorizations may still take
 * (balance minus `held`, the amount active authorizations hold); both are null when the cloud
 * does not report holds.
 */
export function cardSummaryA(card: Card): Record<string, unknown> {
  return {
    card_id: card.cardId,
    label: card.label,
    last4: card.last4,
    status: card.status,
    balance: formatMinor(card.balanceMinor),
    available: minorOrNull(card.availableMinor),
    held: minorOrNull(card.heldMinor),
    currency: card.currency,
  };
}

/** cardDetailA is GET /cards/:card_id: the summary plus daily_limit and daily_spent. */
export function cardDetailA(card: Card): Record<string, unknown> {
  return { ...cardSummaryA(card), daily_limit: formatMinor(card.dailyLimitMinor), daily_spent: formatMinor(card.dailySpentMinor) };
}

/** authorizationA is the scoped authorization object. */
export function authorizationA(authorization: Authorization): Record<string, unknown> {
  const out: Record<string, unknown> = {
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
  };
  if (authorization.recurring !== null) {
    const r = authorization.recurring;
    out['interval'] = r.interval;
    out['interval_count'] = r.intervalCount;
    out['max_charges'] = r.maxCharges;
    out['current_period_start'] = r.currentPeriodStart === null ? null : isoSeconds(r.currentPeriodStart);
    out['current_period_end'] = r.currentPeriodEnd === null ? null : isoSeconds(r.currentPeriodEnd);
  }
  return out;
}

/** policyWindowA is the signed window shown on GET /transactions/:tx_id. */
export function policyWindowA(window: PolicyWindowView): Record<string, unknown> {
  return {
    policy_id: window.policyId,
    card_id: window.cardId,
    merchant: window.merchant,
    amount: formatMinor(window.amountMinor),
    currency: window.currency,
    authorization_type: window.authorizationType,
    not_before: isoSeconds(window.notBefore),
    not_after: isoSeconds(window.notAfter),
    key_id: window.keyId,
    jws: window.jws,
  };
}

/** transactionA is a transaction; the single read adds policy_window. */
export function transactionA(transaction: Transaction): Record<string, unknown> {
  const out: Record<string, unknown> = {
    id: transaction.id,
    card_id: transaction.cardId,
    amount: formatMinor(transaction.amountMinor),
    currency: transaction.currency,
    merchant: transaction.merchant,
    status: transaction.status,
    created_at: isoSeconds(transaction.createdAt),
    policy_id: transaction.policyId,
  };
  if (transaction.declineCode !== null) out['decline_code'] = transaction.declineCode;
  if (transaction.policyWindow !== undefined) {
    out['policy_window'] = transaction.policyWindow === null ? null : policyWindowA(transaction.policyWindow);
  }
  return out;
}

/** walletA is GET /wallet/balance. */
export function walletA(wallet: Wallet): Record<string, unknown> {
  return { usdt: formatMinor(wallet.usdtMinor), allocated: formatMinor(wallet.allocatedMinor), available: formatMinor(wallet.availableMinor) };
}

/** allocationA is POST /wallet/allocate. */
export function allocationA(allocation: Allocation): Record<string, unknown> {
  return { card_id: allocation.cardId, allocated: formatMinor(allocation.allocatedMinor), new_balance: formatMinor(allocation.newBalanceMinor) };
}

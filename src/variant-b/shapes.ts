/**
 * Variant B's wire shapes: exactly the Variant B table of docs/api.md, with money as JSON numbers
 * (docs/decisions.md §3). The numbers are produced from exact decimal text, never from arithmetic.
 */
import type { CreatedAuthorization } from '../core/authorizations.js';
import type { Allocation } from '../core/model.js';
import type { Card, PolicyWindowView, Transaction, Wallet } from '../operations/read-model.js';
import { minorToJsonNumber } from '../money/amount.js';
import { isoSeconds } from '../time/iso-time.js';

/** cardSummaryB is a card in GET /cards: {id, label, status, balance}. */
export function cardSummaryB(card: Card): Record<string, unknown> {
  return { id: card.cardId, label: card.label, status: card.status, balance: minorToJsonNumber(card.balanceMinor) };
}

/** cardDetailB is GET /cards/:card_id: {id, label, status, balance, daily_limit}. */
export function cardDetailB(card: Card): Record<string, unknown> {
  return { ...cardSummaryB(card), daily_limit: minorToJsonNumber(card.dailyLimitMinor) };
}

/**
 * authorizationResultB is POST /authorize: {tx_id, status: "authorized", signed_at}, where
 * signed_at is the window's `iat`. A one-time authorization always has a transaction; an answer
 * without one is a broken invariant, reported as internal_error rather than as `tx_id: null`.
 */
export function authorizationResultB(created: CreatedAuthorization): Record<string, unknown> {
  const txId = created.authorization.transactionId;
  if (txId === null) throw new Error('authorizationResultB: the cloud returned a one-time authorization without a transaction');
  return { tx_id: txId, status: 'authorized', signed_at: isoSeconds(created.window.payload.iat) };
}

/** transactionSummaryB is a transaction in GET /transactions: {id, amount, merchant, status}. */
export function transactionSummaryB(transaction: Transaction): Record<string, unknown> {
  return { id: transaction.id, amount: minorToJsonNumber(transaction.amountMinor), merchant: transaction.merchant, status: transaction.status };
}

function policyWindowB(window: PolicyWindowView): Record<string, unknown> {
  return {
    policy_id: window.policyId,
    card_id: window.cardId,
    merchant: window.merchant,
    amount: minorToJsonNumber(window.amountMinor),
    currency: window.currency,
    authorization_type: window.authorizationType,
    not_before: isoSeconds(window.notBefore),
    not_after: isoSeconds(window.notAfter),
    key_id: window.keyId,
    jws: window.jws,
  };
}

/** transactionDetailB is GET /transactions/:tx_id: {id, amount, merchant, status, policy_window}. */
export function transactionDetailB(transaction: Transaction): Record<string, unknown> {
  const window = transaction.policyWindow ?? null;
  return { ...transactionSummaryB(transaction), policy_window: window === null ? null : policyWindowB(window) };
}

/** walletB is GET /wallet/balance: {usdt, allocated, available}. */
export function walletB(wallet: Wallet): Record<string, unknown> {
  return { usdt: minorToJsonNumber(wallet.usdtMinor), allocated: minorToJsonNumber(wallet.allocatedMinor), available: minorToJsonNumber(wallet.availableMinor) };
}

/** allocationB is POST /wallet/allocate: {card_id, allocated, new_balance}. */
export function allocationB(allocation: Allocation): Record<string, unknown> {
  return { card_id: allocation.cardId, allocated: minorToJsonNumber(allocation.allocatedMinor), new_balance: minorToJsonNumber(allocation.newBalanceMinor) };
}

/**
 * Variant A's wire shapes (docs/decisions.md §4): every money value is a decimal string with the
 * currency's decimals, times are ISO 8601 UTC. test/client/wire-types.test.ts holds the client's
 * types (src/client/types.ts) to what these functions return, field by field, at compile time;
 * test/mcp/output-schemas.test.ts holds the MCP outputSchemas and docs/api.md's examples to them.
 */
import type { Allocation } from '../core/model.js';
import type { Card, PolicyWindowView, Transaction, Wallet } from '../operations/read-model.js';
import { formatMinor } from '../money/amount.js';
import { isoSeconds } from '../time/iso-time.js';

const minorOrNull = (minor: number | null): string | null => (minor === null ? null : formatMinor(minor));

/**
 * cardSummaryA is a card in GET /cards. `available` is what new authorizations may still take
 * (balance minus `held`, the amount active authorizations hold); both are null when the cloud
 * does not report holds.
 */
export function cardSummaryA(card: Card) {
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
export function cardDetailA(card: Card) {
  return { ...cardSummaryA(card), daily_limit: formatMinor(card.dailyLimitMinor), daily_spent: formatMinor(card.dailySpentMinor) };
}

export { authorizationA } from '../variant-common/authorization-shape.js';

/** policyWindowA is the signed window shown on GET /transactions/:tx_id. */
export function policyWindowA(window: PolicyWindowView) {
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
export function transactionA(transaction: Transaction) {
  const listed = {
    id: transaction.id,
    card_id: transaction.cardId,
    amount: formatMinor(transaction.amountMinor),
    currency: transaction.currency,
    merchant: transaction.merchant,
    status: transaction.status,
    created_at: isoSeconds(transaction.createdAt),
    policy_id: transaction.policyId,
    ...(transaction.declineCode !== null && { decline_code: transaction.declineCode }),
  };
  if (transaction.policyWindow === undefined) return listed;
  return { ...listed, policy_window: transaction.policyWindow === null ? null : policyWindowA(transaction.policyWindow) };
}

/** walletA is GET /wallet/balance. */
export function walletA(wallet: Wallet) {
  return { usdt: formatMinor(wallet.usdtMinor), allocated: formatMinor(wallet.allocatedMinor), available: formatMinor(wallet.availableMinor) };
}

/** allocationA is POST /wallet/allocate. */
export function allocationA(allocation: Allocation) {
  return { card_id: allocation.cardId, allocated: formatMinor(allocation.allocatedMinor), new_balance: formatMinor(allocation.newBalanceMinor) };
}

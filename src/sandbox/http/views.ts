/**
 * The cloud API's wire shapes (docs/decisions.md §4 and §6): money as decimal strings with the
 * currency's two decimals, times as ISO 8601 UTC. Internal fields (account ids, each window's
 * hold, the daily-limit day) never leave the sandbox through these.
 */
import { formatMinor } from '../../money/amount.js';
import { isoSeconds } from '../../time/iso-time.js';
import { periodIndexAt, periodStart, utcDay } from '../ledger/periods.js';
import type { Account, Authorization, Card, SandboxState, Transaction } from '../ledger/state.js';
import { cardStatus, dailySpent } from '../ops/queries.js';

/**
 * cardView is `{card_id, label, last4, status, balance, available, held, currency, daily_limit,
 * daily_spent}`: `held` is the sum of the active windows' holds and `available` is balance − held,
 * what a new hold may still take (additive v1 fields).
 */
export function cardView(state: SandboxState, card: Card, now: number): Record<string, unknown> {
  return {
    card_id: card.card_id,
    label: card.label,
    last4: card.last4,
    status: cardStatus(state, card),
    balance: formatMinor(card.balance),
    available: formatMinor(card.balance - card.held),
    held: formatMinor(card.held),
    currency: card.currency,
    daily_limit: formatMinor(card.daily_limit),
    daily_spent: formatMinor(dailySpent(state, card, utcDay(now))),
  };
}

/** authorizationView is Variant A's authorization object; recurring ones add their schedule. */
export function authorizationView(authorization: Authorization, now: number): Record<string, unknown> {
  const view: Record<string, unknown> = {
    policy_id: authorization.policy_id,
    authorization_id: authorization.policy_id,
    card_id: authorization.card_id,
    merchant_name: authorization.merchant,
    amount: formatMinor(authorization.amount),
    currency: authorization.currency,
    authorization_type: authorization.authorization_type,
    kind: authorization.kind,
    not_before: isoSeconds(authorization.not_before),
    expires_at: isoSeconds(authorization.not_after),
    status: authorization.status,
    created_at: isoSeconds(authorization.created_at),
    transaction_id: authorization.transaction_id,
  };
  const recurrence = authorization.recurrence;
  if (recurrence !== null) {
    const { interval, interval_count: count } = recurrence;
    // Past the end of the schedule the last period is shown.
    const at = Math.min(now, authorization.not_after);
    const index = periodIndexAt(authorization.not_before, interval, count, at);
    view['interval'] = interval;
    view['interval_count'] = count;
    view['current_period_start'] = isoSeconds(periodStart(authorization.not_before, interval, count, index));
    view['current_period_end'] = isoSeconds(Math.min(periodStart(authorization.not_before, interval, count, index + 1), authorization.not_after));
    view['max_charges'] = recurrence.max_charges;
    view['charges_count'] = recurrence.charges_count;
  }
  return view;
}

/** transactionView is the list shape; decline_code only on declines. */
export function transactionView(transaction: Transaction): Record<string, unknown> {
  const view: Record<string, unknown> = {
    id: transaction.id,
    card_id: transaction.card_id,
    amount: formatMinor(transaction.amount),
    currency: transaction.currency,
    merchant: transaction.merchant,
    status: transaction.status,
    created_at: isoSeconds(transaction.created_at),
    policy_id: transaction.policy_id,
  };
  if (transaction.decline_code !== null) view['decline_code'] = transaction.decline_code;
  return view;
}

/** transactionDetailView adds the signed policy window the transaction was made under, or null. */
export function transactionDetailView(state: SandboxState, transaction: Transaction): Record<string, unknown> {
  const authorization = transaction.policy_id === null ? undefined : state.authorizations.get(transaction.policy_id);
  return {
    ...transactionView(transaction),
    policy_window:
      authorization === undefined
        ? null
        : {
            policy_id: authorization.policy_id,
            card_id: authorization.card_id,
            merchant: authorization.merchant,
            amount: formatMinor(authorization.amount),
            currency: authorization.currency,
            authorization_type: authorization.authorization_type,
            not_before: isoSeconds(authorization.not_before),
            not_after: isoSeconds(authorization.not_after),
            key_id: authorization.key_id,
            jws: authorization.jws,
          },
  };
}

/** walletView is `{usdt, allocated, available}`. */
export function walletView(account: Account): Record<string, string> {
  return { usdt: formatMinor(account.wallet.usdt), allocated: formatMinor(account.wallet.allocated), available: formatMinor(account.wallet.available) };
}

import { randomId } from '../../ids/random-id.js';
import type { Txn } from '../ledger/ledger.js';
import { periodIndexAt, utcDay } from '../ledger/periods.js';
import type { Authorization, Card, DeclineCode, SandboxState, Transaction } from '../ledger/state.js';
import { activeWindowsFor, dailyUsage, windowAppliesToCard } from './queries.js';

/** An incoming charge from the card network; merchant is already normalized. */
export interface ChargeRequest {
  cardId: string;
  merchant: string;
  amount: number;
  currency: string;
}

export interface ChargeDecision {
  decision: 'approved' | 'declined';
  declineCode: DeclineCode | null;
  transaction: Transaction;
}

/**
 * charge decides one incoming charge and records the decision as a transaction. The order, and
 * the first failing step names the decline:
 *
 * 1. the card exists → else `card_not_found`; 2. it is not closed → else `card_closed`;
 * 3. an active window for this merchant and currency applies to the card (its own windows and
 *    its account's account-wide windows) → else `authorization_expired` when such a window
 *    existed and expired, `card_frozen` when no window at all is active, `scope_mismatch`
 *    otherwise; 4. one of those windows has started (not_before ≤ now), allows the amount
 *    (exact: equal; ceiling: at most) and, when recurring, has no approved charge in the current
 *    period → else `scope_mismatch`; 5. a window holding funds is captured as is (its funds and
 *    daily limit were reserved when it was created); otherwise the card's balance minus its
 *    holds must cover the amount → else `insufficient_funds`, and amount + today's usage must
 *    fit the daily limit → else `daily_limit_exceeded`.
 *
 * Among several windows that fit, it captures a holding one first, then a card window before an
 * account-wide one, then the one that ends first.
 */
export function charge(txn: Txn, request: ChargeRequest): ChargeDecision {
  const { state } = txn;
  const card = state.cards.get(request.cardId);
  if (card === undefined) return decline(txn, null, request, 'card_not_found');
  if (card.closed) return decline(txn, card, request, 'card_closed');
  const active = activeWindowsFor(state, card);
  const forMerchant = active.filter((w) => w.merchant === request.merchant && w.currency === request.currency);
  if (forMerchant.length === 0) {
    if (hadExpiredWindow(state, card, request)) return decline(txn, card, request, 'authorization_expired');
    return decline(txn, card, request, active.length === 0 ? 'card_frozen' : 'scope_mismatch');
  }
  const payable = forMerchant.filter((w) => w.not_before <= txn.now && amountFits(w, request.amount) && periodOpen(w, txn.now));
  const window = choose(payable);
  if (window === undefined) return decline(txn, card, request, 'scope_mismatch');
  const holding = window.hold_day !== null;
  if (!holding) {
    if (request.amount > card.balance - card.held) return decline(txn, card, request, 'insufficient_funds');
    if (request.amount + dailyUsage(state, card, utcDay(txn.now)) > card.daily_limit) return decline(txn, card, request, 'daily_limit_exceeded');
  }
  return approve(txn, card, window, request);
}

function amountFits(window: Authorization, amount: number): boolean {
  return window.authorization_type === 'exact' ? amount === window.amount : amount <= window.amount;
}

function periodOpen(window: Authorization, now: number): boolean {
  const recurrence = window.recurrence;
  if (recurrence === null || recurrence.last_charged_period === null) return true;
  return periodIndexAt(window.not_before, recurrence.interval, recurrence.interval_count, now) > recurrence.last_charged_period;
}

function choose(windows: Authorization[]): Authorization | undefined {
  const rank = (w: Authorization): number => (w.hold_day !== null ? 0 : w.card_id !== null ? 1 : 2);
  // activeWindowsFor lists oldest first and sort is stable, so ties go to the older window.
  return [...windows].sort((a, b) => rank(a) - rank(b) || a.not_after - b.not_after)[0];
}

function hadExpiredWindow(state: SandboxState, card: Card, request: ChargeRequest): boolean {
  for (const authorization of state.authorizations.values()) {
    if (
      authorization.status === 'expired' &&
      authorization.merchant === request.merchant &&
      authorization.currency === request.currency &&
      windowAppliesToCard(authorization, card)
    ) {
      return true;
    }
  }
  return false;
}

function approve(txn: Txn, card: Card, window: Authorization, request: ChargeRequest): ChargeDecision {
  const own = window.transaction_id === null ? undefined : txn.state.transactions.get(window.transaction_id);
  // The window's own `authorized` transaction becomes the settlement; later periods get new ones.
  const settlesOwn = own !== undefined && own.status === 'authorized';
  const transaction: Transaction = {
    id: settlesOwn ? own.id : randomId('tx'),
    account_id: card.account_id,
    card_id: card.card_id,
    amount: request.amount,
    currency: request.currency,
    merchant: request.merchant,
    status: 'settled',
    created_at: settlesOwn ? own.created_at : txn.now,
    policy_id: window.policy_id,
    decline_code: null,
    limit_day: window.hold_day ?? utcDay(txn.now),
  };
  const recurrence = window.recurrence;
  const period = recurrence === null ? null : periodIndexAt(window.not_before, recurrence.interval, recurrence.interval_count, txn.now);
  txn.emit({ type: 'charge_approved', policy_id: window.policy_id, period, transaction });
  return { decision: 'approved', declineCode: null, transaction: txn.state.transactions.get(transaction.id) as Transaction };
}

function decline(txn: Txn, card: Card | null, request: ChargeRequest, code: DeclineCode): ChargeDecision {
  const transaction: Transaction = {
    id: randomId('tx'),
    account_id: card?.account_id ?? null,
    card_id: request.cardId,
    amount: request.amount,
    currency: request.currency,
    merchant: request.merchant,
    status: 'declined',
    created_at: txn.now,
    policy_id: null,
    decline_code: code,
    limit_day: null,
  };
  txn.emit({ type: 'charge_declined', transaction });
  return { decision: 'declined', declineCode: code, transaction: txn.state.transactions.get(transaction.id) as Transaction };
}

import { LatchError, invalidRequest } from '../../errors/latch-error.js';
import { randomId } from '../../ids/random-id.js';
import { formatMinor } from '../../money/amount.js';
import type { Txn } from '../ledger/ledger.js';
import { utcDay } from '../ledger/periods.js';
import type { Authorization, Card, Transaction } from '../ledger/state.js';
import {
  NOT_BEFORE_LEEWAY_SECONDS,
  RECURRING_SECONDS_MAX,
  RECURRING_START_AHEAD_SECONDS_MAX,
  WINDOW_SECONDS_MAX,
  WINDOW_SECONDS_MIN,
  type SandboxLimits,
} from './limits.js';
import { accountCard, dailyUsage } from './queries.js';
import { verifyAccountJws } from './verify-jws.js';
import { readWindowPayload, type WindowPayload, type WindowTyp } from './window-payload.js';

const ROLLING_DAY_SECONDS = 86_400;
/** Account-wide windows spend from the account's cards, which are all USD. */
const ACCOUNT_CURRENCY = 'USD';

/**
 * createWindow verifies a signed policy window and records it as an active authorization. The
 * checks run in this order, and the first failure is the answer: the JWS (signature, key, account),
 * the payload's fields, `typ` for the endpoint, policy_id not used before, the card (not found,
 * closed), currency, the time bounds, the amount bounds and merchant-verification cap, then funds
 * and the daily limit. One-time and merchant-verification card windows hold their amount on the
 * card; recurring and account-wide windows hold nothing and are checked per charge.
 */
export function createWindow(txn: Txn, accountId: string, jws: string, typ: WindowTyp, limits: SandboxLimits): Authorization {
  const { state } = txn;
  const { payload, device } = verifyAccountJws(state, jws, accountId, 'window');
  const window = readWindowPayload(payload, typ);
  if (state.authorizations.has(window.policyId)) throw invalidRequest('policy_id', 'This policy_id was already used; sign a new window.');
  const card = window.cardId === null ? null : accountCard(state, accountId, window.cardId);
  if (card?.closed === true) throw new LatchError('card_closed');
  if (card === null && window.kind === 'merchant_verification') throw invalidRequest('kind', 'Merchant verification needs a card; use POST /v1/authorizations.');
  if (window.currency !== (card?.currency ?? ACCOUNT_CURRENCY)) throw new LatchError('currency_mismatch', { param: 'currency' });
  checkTimes(window, txn.now);
  checkAmount(window, limits);
  const held = card !== null && window.kind !== 'recurring';
  if (card !== null) {
    if (window.kind === 'merchant_verification') checkVerificationCount(txn, card, limits);
    checkFundsAndLimit(txn, card, window, held);
  }
  const transaction: Transaction | null =
    card === null
      ? null
      : {
          id: randomId('tx'),
          account_id: accountId,
          card_id: card.card_id,
          amount: window.amount,
          currency: window.currency,
          merchant: window.merchant,
          status: 'authorized',
          created_at: txn.now,
          policy_id: window.policyId,
          decline_code: null,
          limit_day: null,
        };
  const authorization: Authorization = {
    policy_id: window.policyId,
    account_id: accountId,
    card_id: window.cardId,
    device_id: device.device_id,
    key_id: device.key_id,
    merchant: window.merchant,
    amount: window.amount,
    currency: window.currency,
    authorization_type: window.authorizationType,
    kind: window.kind,
    not_before: window.notBefore,
    not_after: window.notAfter,
    status: 'active',
    created_at: txn.now,
    transaction_id: transaction?.id ?? null,
    hold: held ? window.amount : 0,
    hold_day: held ? utcDay(txn.now) : null,
    jws,
    recurrence:
      window.recurring === null
        ? null
        : { interval: window.recurring.interval, interval_count: window.recurring.intervalCount, max_charges: window.recurring.maxCharges, charges_count: 0, last_charged_period: null },
  };
  txn.emit({ type: 'authorization_created', authorization, transaction });
  return state.authorizations.get(window.policyId) as Authorization;
}

function checkTimes(window: WindowPayload, now: number): void {
  const span = window.notAfter - window.notBefore;
  if (window.notAfter <= now) throw invalidRequest('not_after', 'not_after must be in the future on the cloud clock.');
  if (window.kind === 'recurring') {
    if (span < WINDOW_SECONDS_MIN || span > RECURRING_SECONDS_MAX) throw invalidRequest('not_after', 'A recurring schedule runs from 1 minute to 10 years.');
    if (window.notBefore > now + RECURRING_START_AHEAD_SECONDS_MAX) throw invalidRequest('not_before', 'A recurring schedule starts at most a year ahead.');
    return;
  }
  if (span < WINDOW_SECONDS_MIN || span > WINDOW_SECONDS_MAX) throw invalidRequest('not_after', 'A window lasts from 1 minute to 24 hours (not_after - not_before).');
  if (window.notBefore > now + NOT_BEFORE_LEEWAY_SECONDS) throw invalidRequest('not_before', 'not_before is more than 5 minutes in the future.');
}

function checkAmount(window: WindowPayload, limits: SandboxLimits): void {
  if (window.kind === 'merchant_verification') {
    if (window.amount > limits.verificationAmountMaxMinor) throw new LatchError('verification_cap_exceeded', { param: 'amount', message: 'A merchant verification is at most 1.00.' });
    return;
  }
  if (window.amount === 0) throw invalidRequest('amount', 'amount must be greater than zero.');
  if (window.amount > limits.authorizationAmountMaxMinor) throw invalidRequest('amount', 'amount is above the per-authorization maximum.');
}

function checkVerificationCount(txn: Txn, card: Card, limits: SandboxLimits): void {
  let recent = 0;
  for (const authorization of txn.state.authorizations.values()) {
    if (authorization.card_id === card.card_id && authorization.kind === 'merchant_verification' && authorization.created_at > txn.now - ROLLING_DAY_SECONDS) recent++;
  }
  if (recent >= limits.verificationsPer24h) throw new LatchError('verification_cap_exceeded');
}

function checkFundsAndLimit(txn: Txn, card: Card, window: WindowPayload, held: boolean): void {
  if (held && window.amount > card.balance - card.held) throw new LatchError('insufficient_funds', { message: shortOfFunds(card, window.amount) });
  // A hold reserves today's limit; a recurring window can never pay more than one day's limit.
  const usage = held ? dailyUsage(txn.state, card, utcDay(txn.now)) : 0;
  if (window.amount + usage > card.daily_limit) throw new LatchError('daily_limit_exceeded');
}

/** shortOfFunds names what the card has available, its balance and holds, and what was asked. */
function shortOfFunds(card: Card, requestedMinor: number): string {
  const available = formatMinor(card.balance - card.held);
  return `Card ${card.card_id} has ${available} ${card.currency} available (${formatMinor(card.balance)} balance, ${formatMinor(card.held)} held); ${formatMinor(requestedMinor)} was requested.`;
}

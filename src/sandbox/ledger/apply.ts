import type { JournalRecord, LedgerEvent } from './events.js';
import { accountScope, cardScope, indexCreated } from './creation-index.js';
import { indexExpiry, unindexExpiry } from './expiry-index.js';
import { cardDayKey, type Account, type Authorization, type Card, type SandboxState, type Transaction } from './state.js';

/** How long an idempotency record is kept (docs/decisions.md §9). */
export const IDEMPOTENCY_TTL_SECONDS = 24 * 60 * 60;

/**
 * apply is the ledger's one state transition: it applies a committed record to state, in place,
 * and returns it. It is deterministic: no clock, no randomness, only the state and the record.
 * The live ledger and the journal replay both go through applyEvent and sealRecord, so the state
 * after a replay equals the state before the restart by construction. A record that does not fit
 * the state is a corrupt journal or a bug, and throws.
 */
export function apply(state: SandboxState, record: JournalRecord): SandboxState {
  for (const event of record.events) applyEvent(state, event);
  sealRecord(state, record);
  return state;
}

/**
 * sealRecord finishes a record after its events: it advances the sequence number and forgets
 * expired idempotency records and nonces. The live ledger applies events as it emits them and
 * then seals, which is apply() taken in two steps.
 */
export function sealRecord(state: SandboxState, record: JournalRecord): void {
  if (record.seq !== state.seq + 1) throw new Error(`journal record ${record.seq} follows ${state.seq}`);
  prune(state, record);
  state.seq = record.seq;
}

/** applyEvent applies one event; the live ledger calls it as it decides, apply() at replay. */
export function applyEvent(state: SandboxState, event: LedgerEvent): void {
  switch (event.type) {
    case 'account_created':
      state.accounts.set(event.account_id, { account_id: event.account_id, created_at: event.created_at, wallet: { usdt: 0, allocated: 0, available: 0 } });
      return;
    case 'setup_token_created':
      state.setup_tokens.set(event.token_hash, {
        token_hash: event.token_hash,
        account_id: event.account_id,
        expires_at: event.expires_at,
        used: false,
        created_at: event.created_at,
      });
      return;
    case 'setup_token_used':
      must(state.setup_tokens.get(event.token_hash), 'setup token').used = true;
      return;
    case 'device_enrolled':
      state.devices.set(event.device.device_id, { ...event.device });
      state.device_by_key_id.set(event.device.key_id, event.device.device_id);
      return;
    case 'device_removed': {
      const device = must(state.devices.get(event.device_id), 'device');
      state.devices.delete(device.device_id);
      state.device_by_key_id.delete(device.key_id);
      return;
    }
    case 'deposited': {
      const wallet = accountOf(state, event.account_id).wallet;
      wallet.usdt += event.amount;
      wallet.available += event.amount;
      return;
    }
    case 'card_created':
      state.cards.set(event.card_id, {
        card_id: event.card_id,
        account_id: event.account_id,
        label: event.label,
        last4: event.last4,
        currency: event.currency,
        balance: 0,
        held: 0,
        daily_limit: event.daily_limit,
        closed: false,
        created_at: event.created_at,
      });
      return;
    case 'allocated': {
      const card = cardOf(state, event.card_id);
      const wallet = accountOf(state, card.account_id).wallet;
      check(event.amount > 0 && wallet.available >= event.amount, 'allocation beyond the available funds');
      wallet.available -= event.amount;
      wallet.allocated += event.amount;
      card.balance += event.amount;
      return;
    }
    case 'card_updated': {
      const card = cardOf(state, event.card_id);
      if (event.label !== undefined) card.label = event.label;
      if (event.daily_limit !== undefined) card.daily_limit = event.daily_limit;
      return;
    }
    case 'card_closed':
      closeCard(state, cardOf(state, event.card_id));
      return;
    case 'authorization_created':
      createAuthorization(state, event.authorization, event);
      return;
    case 'authorization_ended':
      endAuthorization(state, authorizationOf(state, event.policy_id), event.status);
      return;
    case 'charge_approved':
      approveCharge(state, event);
      return;
    case 'charge_declined':
      check(event.transaction.status === 'declined', 'a declined charge must be recorded as declined');
      putTransaction(state, event.transaction);
      return;
    case 'clock_advanced':
      check(event.seconds > 0, 'the ledger clock only moves forward');
      state.clock_offset_seconds += event.seconds;
      return;
    case 'clock_set':
      // Setting the offset (0 = the real clock again) is how a user undoes an advance; the ledger
      // clock never goes behind the real clock, which signature freshness is measured against.
      check(Number.isSafeInteger(event.offset_seconds) && event.offset_seconds >= 0, 'the ledger clock offset is a whole number of seconds, never negative');
      state.clock_offset_seconds = event.offset_seconds;
      return;
    case 'nonce_seen':
      state.nonces.set(event.key, event.forget_at_real);
      return;
    case 'idempotency_stored':
      state.idempotency.delete(event.key);
      state.idempotency.set(event.key, { ...event.record });
      return;
  }
}

function closeCard(state: SandboxState, card: Card): void {
  check(!card.closed && card.held === 0, 'a card is closed once, after its windows ended');
  // A closed card's balance goes back to the wallet: closed is final, the money is not.
  const wallet = accountOf(state, card.account_id).wallet;
  wallet.allocated -= card.balance;
  wallet.available += card.balance;
  card.balance = 0;
  card.closed = true;
}

function createAuthorization(state: SandboxState, authorization: Authorization, event: Extract<LedgerEvent, { type: 'authorization_created' }>): void {
  check(!state.authorizations.has(authorization.policy_id), 'policy_id reused');
  check(authorization.status === 'active', 'a new authorization is active');
  state.authorizations.set(authorization.policy_id, { ...authorization, recurrence: authorization.recurrence === null ? null : { ...authorization.recurrence } });
  state.active_authorizations.add(authorization.policy_id);
  indexExpiry(state.expiry_index, authorization.not_after, authorization.policy_id);
  indexCreated(state.authorization_index, authorization.policy_id, authorization.card_id === null ? [accountScope(authorization.account_id)] : [accountScope(authorization.account_id), cardScope(authorization.account_id, authorization.card_id)]);
  if (authorization.hold > 0) {
    const card = cardOf(state, must(authorization.card_id, 'held card'));
    check(card.balance - card.held >= authorization.hold, 'hold beyond the card balance');
    card.held += authorization.hold;
    addToDay(state.held_by_card_day, card.card_id, must(authorization.hold_day, 'hold day'), authorization.hold);
  }
  if (event.transaction !== null) putTransaction(state, event.transaction);
}

function releaseHold(state: SandboxState, authorization: Authorization): void {
  if (authorization.hold === 0) return;
  const card = cardOf(state, must(authorization.card_id, 'held card'));
  card.held -= authorization.hold;
  addToDay(state.held_by_card_day, card.card_id, must(authorization.hold_day, 'hold day'), -authorization.hold);
  authorization.hold = 0;
}

function endAuthorization(state: SandboxState, authorization: Authorization, status: 'expired' | 'revoked'): void {
  check(authorization.status === 'active', 'only an active authorization ends');
  authorization.status = status;
  state.active_authorizations.delete(authorization.policy_id);
  unindexExpiry(state.expiry_index, authorization.not_after, authorization.policy_id);
  releaseHold(state, authorization);
  const transaction = authorization.transaction_id === null ? undefined : state.transactions.get(authorization.transaction_id);
  if (transaction !== undefined && transaction.status === 'authorized') transaction.status = status;
}

function approveCharge(state: SandboxState, event: Extract<LedgerEvent, { type: 'charge_approved' }>): void {
  const authorization = authorizationOf(state, event.policy_id);
  const settled = event.transaction;
  check(authorization.status === 'active' && settled.status === 'settled', 'a charge settles against an active window');
  const card = cardOf(state, settled.card_id);
  const wallet = accountOf(state, card.account_id).wallet;
  releaseHold(state, authorization);
  check(card.balance - card.held >= settled.amount, 'charge beyond the card balance');
  card.balance -= settled.amount;
  // The money leaves the account: the wallet total and the allocated part shrink together.
  wallet.usdt -= settled.amount;
  wallet.allocated -= settled.amount;
  putTransaction(state, settled);
  if (authorization.transaction_id === null) authorization.transaction_id = settled.id;
  const recurrence = authorization.recurrence;
  if (recurrence === null) {
    markUsed(state, authorization);
    return;
  }
  recurrence.charges_count += 1;
  recurrence.last_charged_period = event.period;
  if (recurrence.max_charges !== null && recurrence.charges_count >= recurrence.max_charges) markUsed(state, authorization);
}

/** putTransaction stores a copy of transaction (new, or replacing its earlier state) and keeps settled_by_card_day in step. */
function putTransaction(state: SandboxState, transaction: Transaction): void {
  const previous = state.transactions.get(transaction.id);
  if (previous?.status === 'settled' && previous.limit_day !== null) addToDay(state.settled_by_card_day, previous.card_id, previous.limit_day, -previous.amount);
  state.transactions.set(transaction.id, { ...transaction });
  // A declined charge on an unknown card belongs to no account and is listed to nobody.
  if (previous === undefined && transaction.account_id !== null) indexCreated(state.transaction_index, transaction.id, [accountScope(transaction.account_id), cardScope(transaction.account_id, transaction.card_id)]);
  if (transaction.status === 'settled' && transaction.limit_day !== null) addToDay(state.settled_by_card_day, transaction.card_id, transaction.limit_day, transaction.amount);
}

/** addToDay adds amount to a card's total of a day; a total back at zero is dropped, so the map stays as small as what it counts. */
function addToDay(totals: Map<string, number>, cardId: string, day: string, amount: number): void {
  const key = cardDayKey(cardId, day);
  const total = (totals.get(key) ?? 0) + amount;
  if (total === 0) totals.delete(key);
  else totals.set(key, total);
}

function markUsed(state: SandboxState, authorization: Authorization): void {
  authorization.status = 'used';
  state.active_authorizations.delete(authorization.policy_id);
  unindexExpiry(state.expiry_index, authorization.not_after, authorization.policy_id);
}

/** prune forgets idempotency records older than 24 h and nonces whose signatures can no longer be fresh. */
function prune(state: SandboxState, record: JournalRecord): void {
  // Both maps are in insertion order, which follows time; pruning stops at the first live entry.
  for (const [key, entry] of state.idempotency) {
    if (entry.created_at + IDEMPOTENCY_TTL_SECONDS > record.at) break;
    state.idempotency.delete(key);
  }
  for (const [key, forgetAt] of state.nonces) {
    if (forgetAt > record.real_at) break;
    state.nonces.delete(key);
  }
}

function accountOf(state: SandboxState, accountId: string): Account {
  return must(state.accounts.get(accountId), 'account');
}

function cardOf(state: SandboxState, cardId: string): Card {
  return must(state.cards.get(cardId), 'card');
}

function authorizationOf(state: SandboxState, policyId: string): Authorization {
  return must(state.authorizations.get(policyId), 'authorization');
}

function must<T>(value: T | null | undefined, what: string): T {
  if (value === undefined || value === null) throw new Error(`journal names an unknown ${what}`);
  return value;
}

function check(condition: boolean, what: string): void {
  if (!condition) throw new Error(`ledger invariant broken: ${what}`);
}

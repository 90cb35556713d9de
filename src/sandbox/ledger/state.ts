/**
 * The sandbox ledger's state: plain data, changed only by apply() (apply.ts). Money is integer
 * minor units; times are Unix seconds on the ledger clock unless a name says `real`.
 */
import { emptyCreationIndex, type CreationIndex } from './creation-index.js';
import type { ExpiryIndex } from './expiry-index.js';

import type { AuthorizationKind, AuthorizationStatus, AuthorizationType, RecurringInterval } from '../../core/model.js';
import type { CardStatus, TransactionStatus } from '../../operations/read-model.js';

/** The wire's vocabulary is the daemon's (core/model.ts), so the sandbox cannot speak another. */
export type { AuthorizationKind, AuthorizationStatus, AuthorizationType, CardStatus, RecurringInterval, TransactionStatus };

/** The codes a declined charge can carry. */
export type DeclineCode =
  | 'authorization_expired'
  | 'scope_mismatch'
  | 'insufficient_funds'
  | 'daily_limit_exceeded'
  | 'card_frozen'
  | 'card_closed'
  | 'card_not_found';

/** The wallet keeps all three numbers so the invariant usdt = allocated + available can be checked. */
export interface Wallet {
  usdt: number;
  allocated: number;
  available: number;
}

export interface Account {
  account_id: string;
  created_at: number;
  wallet: Wallet;
}

export interface Card {
  card_id: string;
  account_id: string;
  label: string;
  last4: string;
  currency: string;
  balance: number;
  /** Sum of the holds of this card's active windows; balance − held is what new holds may take. */
  held: number;
  daily_limit: number;
  closed: boolean;
  created_at: number;
}

export interface Device {
  device_id: string;
  account_id: string;
  key_id: string;
  /** The public key's JWK `x` (base64url); the algorithm is always Ed25519. */
  public_key_x: string;
  name: string | null;
  created_at: number;
}

/** A setup token is stored only as its SHA-256, so the journal never holds a usable token. */
export interface SetupToken {
  token_hash: string;
  account_id: string;
  expires_at: number;
  used: boolean;
  created_at: number;
}

export interface Recurrence {
  interval: RecurringInterval;
  interval_count: number;
  max_charges: number | null;
  charges_count: number;
  /** Index of the last period that had an approved charge (period 0 starts at not_before). */
  last_charged_period: number | null;
}

export interface Authorization {
  policy_id: string;
  account_id: string;
  /** null for an account-wide window (POST /v1/policy-windows). */
  card_id: string | null;
  device_id: string;
  key_id: string;
  merchant: string;
  amount: number;
  currency: string;
  authorization_type: AuthorizationType;
  kind: AuthorizationKind;
  not_before: number;
  not_after: number;
  status: AuthorizationStatus;
  created_at: number;
  /** The window's own transaction, or the first settled charge of a window that has none. */
  transaction_id: string | null;
  /** Amount held on the card while active (one-time and merchant-verification card windows). */
  hold: number;
  /** UTC day (YYYY-MM-DD) whose daily limit the hold counts against. */
  hold_day: string | null;
  jws: string;
  recurrence: Recurrence | null;
}

export interface Transaction {
  id: string;
  /** null only for a declined charge on an unknown card. */
  account_id: string | null;
  card_id: string;
  amount: number;
  currency: string;
  merchant: string;
  status: TransactionStatus;
  created_at: number;
  policy_id: string | null;
  decline_code: DeclineCode | null;
  /** UTC day whose daily limit a settled amount counts against. */
  limit_day: string | null;
}

/** A stored answer to a request with an Idempotency-Key (docs/decisions.md §9). */
export interface IdempotencyRecord {
  fingerprint: string;
  status: number;
  body: unknown;
  created_at: number;
}

export interface SandboxState {
  /** Sequence number of the last applied journal record (0: none). */
  seq: number;
  /** How far POST /v1/sandbox/clock has moved the ledger clock ahead of the real clock. */
  clock_offset_seconds: number;
  accounts: Map<string, Account>;
  cards: Map<string, Card>;
  devices: Map<string, Device>;
  device_by_key_id: Map<string, string>;
  setup_tokens: Map<string, SetupToken>;
  /** In creation order; lists read it backwards for newest first. */
  authorizations: Map<string, Authorization>;
  active_authorizations: Set<string>;
  transactions: Map<string, Transaction>;
  /** Keyed by `scope NUL key`, in creation order so expiry prunes from the front. */
  idempotency: Map<string, IdempotencyRecord>;
  /** RFC 9421 nonces seen, keyed by `key_id NUL nonce`, valued by the real time they may be forgotten. */
  nonces: Map<string, number>;
  /**
   * Derived by apply (never journaled): per cardDayKey, the amount settled against that day's
   * limit and the holds of active windows placed that day, so that a decision reads a card's
   * daily usage without scanning every transaction and window the ledger has ever had.
   */
  settled_by_card_day: Map<string, number>;
  held_by_card_day: Map<string, number>;
  /** Derived by apply (never journaled): creation-order indexes, so a list page costs O(page) (creation-index.ts). */
  transaction_index: CreationIndex;
  authorization_index: CreationIndex;
  /** Derived by apply (never journaled): the active windows by not_after, so expiry reads only what is due (expiry-index.ts). */
  expiry_index: ExpiryIndex;
}

/** cardDayKey is the key of a card's UTC day (`YYYY-MM-DD`) in the per-day totals. */
export function cardDayKey(cardId: string, day: string): string {
  return `${cardId}\u0000${day}`;
}

/** emptyState returns the state of a sandbox with an empty journal. */
export function emptyState(): SandboxState {
  return {
    seq: 0,
    clock_offset_seconds: 0,
    accounts: new Map(),
    cards: new Map(),
    devices: new Map(),
    device_by_key_id: new Map(),
    setup_tokens: new Map(),
    authorizations: new Map(),
    active_authorizations: new Set(),
    transactions: new Map(),
    idempotency: new Map(),
    nonces: new Map(),
    settled_by_card_day: new Map(),
    held_by_card_day: new Map(),
    transaction_index: emptyCreationIndex(),
    authorization_index: emptyCreationIndex(),
    expiry_index: [],
  };
}

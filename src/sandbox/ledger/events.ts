import type { Authorization, Device, IdempotencyRecord, Transaction } from './state.js';

/**
 * A LedgerEvent is one fact the ledger has decided. Events carry every id, time and amount they
 * need, so applying them never draws randomness or reads a clock: replaying the journal gives
 * the same state as living through it.
 */
export type LedgerEvent =
  | { type: 'account_created'; account_id: string; created_at: number }
  | { type: 'setup_token_created'; token_hash: string; account_id: string; expires_at: number; created_at: number }
  | { type: 'setup_token_used'; token_hash: string }
  | { type: 'device_enrolled'; device: Device }
  | { type: 'device_removed'; device_id: string }
  | { type: 'deposited'; account_id: string; amount: number }
  | { type: 'card_created'; card_id: string; account_id: string; label: string; last4: string; currency: string; daily_limit: number; created_at: number }
  | { type: 'allocated'; card_id: string; amount: number }
  | { type: 'card_updated'; card_id: string; label?: string; daily_limit?: number }
  | { type: 'card_closed'; card_id: string }
  | { type: 'authorization_created'; authorization: Authorization; transaction: Transaction | null }
  | { type: 'authorization_ended'; policy_id: string; status: 'expired' | 'revoked' }
  | { type: 'charge_approved'; policy_id: string; period: number | null; transaction: Transaction }
  | { type: 'charge_declined'; transaction: Transaction }
  | { type: 'clock_advanced'; seconds: number }
  | { type: 'clock_set'; offset_seconds: number }
  | { type: 'nonce_seen'; key: string; forget_at_real: number }
  | { type: 'idempotency_stored'; key: string; record: IdempotencyRecord };

/** A JournalRecord is one committed change: the events of one operation, written and fsynced together. */
export interface JournalRecord {
  seq: number;
  /** Ledger time of the commit (Unix seconds); idempotency records expire against it. */
  at: number;
  /** Real time of the commit (Unix seconds); remembered nonces expire against it. */
  real_at: number;
  events: LedgerEvent[];
}

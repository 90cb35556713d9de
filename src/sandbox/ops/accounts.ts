import { createHash, randomInt } from 'node:crypto';
import { LatchError, invalidRequest } from '../../errors/latch-error.js';
import { randomId } from '../../ids/random-id.js';
import type { Txn } from '../ledger/ledger.js';
import type { Account, Card } from '../ledger/state.js';
import { activeWindowsFor, accountCard } from './queries.js';

/** The wallet's ceiling in minor units: 100 billion, far below 2^53 so sums stay exact. */
export const WALLET_MINOR_MAX = 10_000_000_000_000;
/** A new card's daily limit when none is given: 1,000.00. */
export const DEFAULT_DAILY_LIMIT_MINOR = 100_000;
/** A setup token's lifetime when none is given: 15 minutes (docs/decisions.md §12). */
export const SETUP_TOKEN_LIFETIME_SECONDS = 15 * 60;

/** hashSetupToken is how a setup token is stored and looked up: its SHA-256, never the token. */
export function hashSetupToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** requireAccount returns the account, or `invalid_request` naming account_id. */
export function requireAccount(txn: Txn, accountId: string): Account {
  const account = txn.state.accounts.get(accountId);
  if (account === undefined) throw invalidRequest('account_id', 'No such account.');
  return account;
}

/** createAccount opens an empty account. */
export function createAccount(txn: Txn): Account {
  const accountId = randomId('acct');
  txn.emit({ type: 'account_created', account_id: accountId, created_at: txn.now });
  return txn.state.accounts.get(accountId) as Account;
}

/** createSetupToken makes a one-use setup token for an account (a new one when accountId is undefined). */
export function createSetupToken(txn: Txn, accountId: string | undefined, lifetimeSeconds: number): { token: string; expiresAt: number; accountId: string } {
  const account = accountId === undefined ? createAccount(txn) : requireAccount(txn, accountId);
  const token = randomId('st');
  const expiresAt = txn.now + lifetimeSeconds;
  txn.emit({ type: 'setup_token_created', token_hash: hashSetupToken(token), account_id: account.account_id, expires_at: expiresAt, created_at: txn.now });
  return { token, expiresAt, accountId: account.account_id };
}

/** deposit adds funds to the account's wallet (the sandbox's stand-in for a USDT top-up). */
export function deposit(txn: Txn, accountId: string, amount: number): Account {
  const account = requireAccount(txn, accountId);
  if (account.wallet.usdt + amount > WALLET_MINOR_MAX) throw invalidRequest('amount', 'The wallet would exceed the sandbox maximum.');
  txn.emit({ type: 'deposited', account_id: accountId, amount });
  return account;
}

/** allocate moves amount from the wallet's available funds to the card's balance (a card of accountId only). */
export function allocate(txn: Txn, accountId: string, cardId: string, amount: number): Card {
  const card = accountCard(txn.state, accountId, cardId);
  const account = txn.state.accounts.get(accountId) as Account;
  if (card.closed) throw new LatchError('card_closed');
  if (account.wallet.available < amount) throw new LatchError('insufficient_funds', { message: 'The wallet has less available than the amount to allocate.' });
  txn.emit({ type: 'allocated', card_id: cardId, amount });
  return card;
}

export interface NewCard {
  accountId: string;
  label: string;
  dailyLimit: number;
  /** Deposited into the wallet and allocated to the card in the same record; 0 for none. */
  balance: number;
}

/** createCard issues a frozen USD card; a starting balance is deposited and allocated atomically. */
export function createCard(txn: Txn, input: NewCard): Card {
  requireAccount(txn, input.accountId);
  const cardId = randomId('card');
  const last4 = String(randomInt(0, 10_000)).padStart(4, '0');
  if (input.balance > 0) deposit(txn, input.accountId, input.balance);
  txn.emit({ type: 'card_created', card_id: cardId, account_id: input.accountId, label: input.label, last4, currency: 'USD', daily_limit: input.dailyLimit, created_at: txn.now });
  if (input.balance > 0) txn.emit({ type: 'allocated', card_id: cardId, amount: input.balance });
  return txn.state.cards.get(cardId) as Card;
}

export interface CardChanges {
  label?: string | undefined;
  dailyLimit?: number | undefined;
  close?: boolean | undefined;
}

/**
 * updateCard changes a card's label or daily limit, or closes it. Closing is final: the card's
 * active windows are revoked (holds released), and its balance returns to the wallet.
 */
export function updateCard(txn: Txn, cardId: string, changes: CardChanges): Card {
  const card = txn.state.cards.get(cardId);
  if (card === undefined) throw new LatchError('card_not_found');
  if (card.closed) throw new LatchError('card_closed');
  if (changes.label !== undefined || changes.dailyLimit !== undefined) {
    const event: { type: 'card_updated'; card_id: string; label?: string; daily_limit?: number } = { type: 'card_updated', card_id: cardId };
    if (changes.label !== undefined) event.label = changes.label;
    if (changes.dailyLimit !== undefined) event.daily_limit = changes.dailyLimit;
    txn.emit(event);
  }
  if (changes.close === true) {
    for (const window of activeWindowsFor(txn.state, card)) {
      // Account-wide windows stay: they still apply to the account's other cards.
      if (window.card_id === cardId) txn.emit({ type: 'authorization_ended', policy_id: window.policy_id, status: 'revoked' });
    }
    txn.emit({ type: 'card_closed', card_id: cardId });
  }
  return card;
}

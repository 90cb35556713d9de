/**
 * What the reads answer: cards, transactions and the wallet. Money is integer minor units; times
 * are Unix seconds. The audited core neither reads nor decides on these (docs/decisions.md §28.12);
 * the vocabulary's rule holds here too: each list is written once and everything else derives
 * from it (test/core/vocabulary.test.ts).
 */
import type { AuthorizationType } from '../core/model.js';

/** Every state a card can be in. */
export const CARD_STATUSES = ['frozen', 'active', 'closed'] as const;
export type CardStatus = (typeof CARD_STATUSES)[number];

export interface Card {
  cardId: string;
  label: string;
  last4: string;
  status: CardStatus;
  balanceMinor: number;
  /**
   * What active authorizations hold on the card, and what is left for new ones (balance − held).
   * Both are null when the cloud does not report holds, so nothing is shown that was not reported.
   */
  heldMinor: number | null;
  availableMinor: number | null;
  currency: string;
  dailyLimitMinor: number;
  dailySpentMinor: number;
}

/** Every state a transaction can be in, as the cloud reports it; validation, MCP schemas, the CLI and the client derive from this list. */
export const TRANSACTION_STATUSES = ['authorized', 'settled', 'expired', 'revoked', 'declined'] as const;
export type TransactionStatus = (typeof TRANSACTION_STATUSES)[number];

export interface PolicyWindowView {
  policyId: string;
  cardId: string | null;
  merchant: string;
  amountMinor: number;
  currency: string;
  authorizationType: AuthorizationType;
  notBefore: number;
  notAfter: number;
  keyId: string;
  jws: string;
}

export interface Transaction {
  id: string;
  cardId: string;
  amountMinor: number;
  currency: string;
  merchant: string;
  status: TransactionStatus;
  createdAt: number;
  policyId: string | null;
  declineCode: string | null;
  /** Present only on the single-transaction read. */
  policyWindow?: PolicyWindowView | null;
}

export interface TransactionPage {
  transactions: Transaction[];
  hasMore: boolean;
}

export interface Wallet {
  usdtMinor: number;
  allocatedMinor: number;
  availableMinor: number;
}

/**
 * The domain objects of the core. Money is integer minor units; times are Unix seconds. Variant A
 * and Variant B map these to their wire shapes; nothing here knows HTTP.
 */

/*
 * The vocabulary of the wire (docs/decisions.md §29.6): each list below is written once, and the
 * types, validators, MCP schemas, CLI choices, the client's types and the sandbox's shapes derive
 * from it (test/core/vocabulary.test.ts holds them to it).
 */

/** isMember reports whether value is one of a vocabulary's words, and narrows it to them. */
export function isMember<T extends string>(words: readonly T[], value: unknown): value is T {
  return typeof value === 'string' && (words as readonly string[]).includes(value);
}

/** The amount types of a window: exactly the amount, or up to it. */
export const AUTHORIZATION_TYPES = ['exact', 'ceiling'] as const;
export type AuthorizationType = (typeof AUTHORIZATION_TYPES)[number];
/** The kinds of window. */
export const AUTHORIZATION_KINDS = ['one_time', 'merchant_verification', 'recurring'] as const;
export type AuthorizationKind = (typeof AUTHORIZATION_KINDS)[number];
/** The kinds of request the pipeline decides (and a policy rule names): every kind of window, AP2 open mandates (docs/ap2.md) and x402 payments (docs/x402.md). */
export const REQUEST_KINDS = [...AUTHORIZATION_KINDS, 'ap2_mandate', 'x402'] as const;
export type RequestKind = (typeof REQUEST_KINDS)[number];
/**
 * The kinds of ledger entry: every kind of window, and an x402 payment, which has no window and no
 * card (docs/x402.md).
 */
export const LEDGER_KINDS = [...AUTHORIZATION_KINDS, 'x402'] as const;
export type LedgerKind = (typeof LEDGER_KINDS)[number];
/** The states of an x402 authorization (shared/spec/x402.md §3). */
export const X402_STATES = ['authorized', 'bound', 'settled', 'failed', 'released', 'expired'] as const;
export type X402State = (typeof X402_STATES)[number];
/** Every state an authorization can be in, as the cloud reports it. */
export const AUTHORIZATION_STATUSES = ['active', 'used', 'expired', 'revoked'] as const;
export type AuthorizationStatus = (typeof AUTHORIZATION_STATUSES)[number];
/** The periods a recurring window repeats over. */
export const RECURRING_INTERVALS = ['day', 'week', 'month', 'year'] as const;
export type RecurringInterval = (typeof RECURRING_INTERVALS)[number];

export interface RecurringTerms {
  interval: RecurringInterval;
  intervalCount: number;
  maxCharges: number | null;
  currentPeriodStart: number | null;
  currentPeriodEnd: number | null;
}

export interface Authorization {
  policyId: string;
  cardId: string | null;
  merchant: string;
  amountMinor: number;
  currency: string;
  authorizationType: AuthorizationType;
  kind: AuthorizationKind;
  notBefore: number;
  expiresAt: number;
  status: AuthorizationStatus;
  createdAt: number;
  transactionId: string | null;
  recurring: RecurringTerms | null;
}

export interface Allocation {
  cardId: string;
  allocatedMinor: number;
  newBalanceMinor: number;
}

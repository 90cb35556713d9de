/**
 * The typed spending policy (docs/decisions.md §15.3). Amounts are integer minor units; every list is
 * already validated and normalized, so evaluation never re-checks what the file said.
 */
import type { RequestKind } from '../core/model.js';
import type { X402Asset } from '../x402/assets.js';

/** The kinds of authorization a rule can name: the pipeline's kinds of request (core/model.ts). */
export type AuthorizationKind = RequestKind;

/** What the policy says about one request; `deny` is stricter than `ask`, which is stricter than `allow`. */
export type PolicyDecision = 'allow' | 'ask' | 'deny';

/** What a limit contributes when a request would go over it. */
export type OverDecision = 'ask' | 'deny';


/** Rolling budget windows: a day is 24 h, a week 7 days, a month 30 days. */
export type BudgetPeriod = 'day' | 'week' | 'month';

/** Where the effective policy came from: the owner's policy.json, or the built-in allow-all. */
export type PolicySource = 'file' | 'default';

/**
 * The conditions shared by rules, budgets and velocity limits. An absent list is no condition;
 * a present list is never empty. `merchants` holds exact normalized domains or `*.domain`.
 */
export interface PolicyScope {
  readonly agents?: readonly string[];
  readonly cards?: readonly string[];
  readonly merchants?: readonly string[];
  readonly currencies?: readonly string[];
}

export interface PolicyRule extends PolicyScope {
  readonly id: string;
  readonly kinds?: readonly AuthorizationKind[];
  /** The rule matches amounts at least this, in minor units. */
  readonly minAmountMinor?: number;
  /** The rule matches amounts at most this, in minor units; a larger request does not match. */
  readonly maxAmountMinor?: number;
  /** x402 payments on these CAIP-2 networks only (a request without a network never matches). */
  readonly networks?: readonly string[];
  /** x402 payments to these payees only, in comparison form (EVM addresses lower case). */
  readonly payTo?: readonly string[];
  readonly decision: PolicyDecision;
}

export interface PolicyBudget extends PolicyScope {
  readonly id: string;
  readonly per: BudgetPeriod;
  /** The rolling window the `per` names, in seconds. */
  readonly windowSeconds: number;
  readonly limitMinor: number;
  readonly over: OverDecision;
}

export interface PolicyVelocity extends PolicyScope {
  readonly id: string;
  readonly perSeconds: number;
  readonly maxCount: number;
  readonly over: OverDecision;
}

export interface Policy {
  readonly source: PolicySource;
  /** SHA-256 (lower-case hex) of the exact file bytes, or of DEFAULT_POLICY_TEXT for the default. */
  readonly sha256: string;
  readonly v: 1;
  readonly default: PolicyDecision;
  readonly newMerchant: PolicyDecision;
  readonly approvalTtlSeconds: number;
  readonly rules: readonly PolicyRule[];
  readonly budgets: readonly PolicyBudget[];
  readonly velocity: readonly PolicyVelocity[];
  /** The x402 assets that count (docs/x402.md): `x402.assets`, or x402's default USDC entries. */
  readonly x402Assets: readonly X402Asset[];
}

/** Seconds in each rolling budget window. */
export const BUDGET_WINDOW_SECONDS: Readonly<Record<BudgetPeriod, number>> = {
  day: 86_400,
  week: 7 * 86_400,
  month: 30 * 86_400,
};

/** The longest window any policy may have (a month, or velocity's largest per_seconds). */
export const POLICY_WINDOW_SECONDS_MAX = 30 * 86_400;

/** The order of strictness; a higher number wins. */
export const DECISION_STRICTNESS: Readonly<Record<PolicyDecision, number>> = { allow: 0, ask: 1, deny: 2 };

import { currencyDecimals, formatMinor } from '../money/amount.js';
import { OWNER_AGENT } from './policy-scope-fields.js';
import { budgetCovers, merchantKeyOf, scopeMatches, type ScopeFacts } from './scope-match.js';
import { exposureWithin, type ChargeSchedule } from './recurring-exposure.js';
import {
  DECISION_STRICTNESS,
  type AuthorizationKind,
  type Policy,
  type PolicyBudget,
  type PolicyDecision,
  type PolicyRule,
  type PolicyVelocity,
} from './policy-types.js';

/** The facts of one request the daemon would sign, as the policy sees them. */
export interface PolicyRequest extends ScopeFacts {
  /** True only for the daemon token; then `agent` is `owner`. */
  readonly isOwner: boolean;
  readonly kind: AuthorizationKind;
  /** An AP2 mandate's card window kind: a rule naming it judges the mandate too (ap2 spec §6). */
  readonly registers?: AuthorizationKind;
  readonly amountMinor: number;
  readonly nowSeconds: number;
  /** A recurring request's schedule: a budget counts every charge of it that fits its window. */
  readonly schedule?: ChargeSchedule;
  /** An x402 payment's CAIP-2 network (rules may name `networks`). */
  readonly network?: string;
}

/** What evaluation needs to know about past authorizations; UsageLedger provides it. */
export interface PolicyUsage {
  merchantKnown(merchant: string): boolean;
  /** Exposure counted by the budget within its window ending at nowSeconds, in minor units. */
  exposure(budget: PolicyBudget, nowSeconds: number): number;
  /** Authorizations counted by the velocity limit within its window ending at nowSeconds. */
  count(velocity: PolicyVelocity, nowSeconds: number): number;
}

export interface BudgetStanding {
  readonly id: string;
  readonly limit: number;
  readonly exposure: number;
  /** limit − exposure, never below zero. */
  readonly remaining: number;
}

export interface PolicyEvaluation {
  readonly decision: PolicyDecision;
  /** The rule or limit that decided: an id from the file, `default` or `new_merchant`. */
  readonly rule: string;
  /** One short sentence for every rule, setting or limit that contributed, in contribution order. */
  readonly reasons: string[];
  /** Every budget whose scope covers the request, in minor units. */
  readonly budgets: BudgetStanding[];
}

interface Contribution {
  readonly decision: PolicyDecision;
  readonly rule: string;
  readonly reason: string;
}

/**
 * evaluatePolicy decides one request (docs/decisions.md §15.3): every matching rule (or, when none
 * matches, `default`), then `new_merchant`, then every budget and velocity limit the request would
 * go over contributes; the strictest decision wins and the first contribution with it is reported.
 */
export function evaluatePolicy(policy: Policy, request: PolicyRequest, usage: PolicyUsage): PolicyEvaluation {
  assertRequest(request);
  const money = (minor: number): string => formatMinor(minor, currencyDecimals(request.currency) ?? 2);
  const contributions: Contribution[] = [];

  for (const rule of policy.rules) {
    if (ruleMatches(rule, request)) {
      contributions.push({ decision: rule.decision, rule: rule.id, reason: `rule ${rule.id} (${rule.decision}): ${ruleReason(rule, request, money)}` });
    }
  }
  if (contributions.length === 0) {
    contributions.push({ decision: policy.default, rule: 'default', reason: `no rule matched; default is ${policy.default}` });
  }
  if (policy.newMerchant !== 'allow' && !usage.merchantKnown(merchantKeyOf(request))) {
    contributions.push({
      decision: policy.newMerchant,
      rule: 'new_merchant',
      reason: `merchant ${request.merchant}${request.payTo === undefined ? '' : ` paying ${request.payTo}`} is new on this device; new_merchant is ${policy.newMerchant}`,
    });
  }

  const budgets: BudgetStanding[] = [];
  for (const budget of policy.budgets) {
    if (!budgetCovers(budget, request)) continue;
    const exposure = usage.exposure(budget, request.nowSeconds);
    budgets.push({ id: budget.id, limit: budget.limitMinor, exposure, remaining: Math.max(0, budget.limitMinor - exposure) });
    // A recurring request counts every charge it allows inside the window (docs/decisions.md §17.2).
    const requested = exposureWithin(request.amountMinor, request.schedule, budget.windowSeconds);
    if (safeSum(exposure, requested) > budget.limitMinor) {
      const what = requested === request.amountMinor ? money(requested) : `${money(requested)} (every charge of ${money(request.amountMinor)} that fits in a ${budget.per})`;
      contributions.push({
        decision: budget.over,
        rule: budget.id,
        reason: `budget ${budget.id} (${budget.over}): ${money(exposure)} of ${money(budget.limitMinor)} used; ${what} would exceed it`,
      });
    }
  }
  for (const velocity of policy.velocity) {
    if (!budgetCovers(velocity, request)) continue;
    const count = usage.count(velocity, request.nowSeconds);
    if (count + 1 > velocity.maxCount) {
      contributions.push({
        decision: velocity.over,
        rule: velocity.id,
        reason: `velocity ${velocity.id} (${velocity.over}): ${count} of ${velocity.maxCount} authorizations in the last ${velocity.perSeconds} seconds; one more would exceed it`,
      });
    }
  }

  const winner = strictest(contributions);
  return { decision: winner.decision, rule: winner.rule, reasons: contributions.map((c) => c.reason), budgets };
}

/**
 * ruleMatches reports whether every condition of the rule holds; a rule without conditions matches
 * all. A request without a card (an account-wide window) can be charged on any card, so a rule
 * that asks or denies on listed cards holds for it (the safe side, as for budgets); a rule that
 * allows on listed cards does not, since allowing one card is no leave to charge any (§27.6).
 */
export function ruleMatches(rule: PolicyRule, request: PolicyRequest): boolean {
  if (!(rule.decision === 'allow' ? scopeMatches(rule, request) : budgetCovers(rule, request))) return false;
  if (rule.kinds !== undefined && !rule.kinds.includes(request.kind) && !(request.registers !== undefined && rule.kinds.includes(request.registers))) return false;
  if (rule.networks !== undefined && (request.network === undefined || !rule.networks.includes(request.network))) return false;
  if (rule.payTo !== undefined && (request.payTo === undefined || !rule.payTo.includes(request.payTo))) return false;
  if (rule.minAmountMinor !== undefined && request.amountMinor < rule.minAmountMinor) return false;
  if (rule.maxAmountMinor !== undefined && request.amountMinor > rule.maxAmountMinor) return false;
  return true;
}

function ruleReason(rule: PolicyRule, request: PolicyRequest, money: (minor: number) => string): string {
  const held: string[] = [];
  if (rule.agents !== undefined) held.push(`caller ${request.agent} is listed`);
  if (rule.cards !== undefined) held.push(request.cardId === null ? 'a window without a card can be charged on a listed card' : `card ${request.cardId} is listed`);
  if (rule.merchants !== undefined) held.push(`merchant ${request.merchant} is listed`);
  if (rule.kinds !== undefined) held.push(rule.kinds.includes(request.kind) ? `kind is ${request.kind}` : `kind is ${request.kind}, which registers a ${request.registers ?? request.kind} card window`);
  if (rule.currencies !== undefined) held.push(`currency is ${request.currency}`);
  if (rule.networks !== undefined) held.push(`network ${String(request.network)} is listed`);
  if (rule.payTo !== undefined) held.push(`payee ${String(request.payTo)} is listed`);
  if (rule.minAmountMinor !== undefined) held.push(`amount ${money(request.amountMinor)} is at least ${money(rule.minAmountMinor)}`);
  if (rule.maxAmountMinor !== undefined) held.push(`amount ${money(request.amountMinor)} is at most ${money(rule.maxAmountMinor)}`);
  return held.length === 0 ? 'matches every request' : held.join(', ');
}

/** strictest returns the first contribution with the strictest decision (file order breaks ties). */
function strictest(contributions: readonly Contribution[]): Contribution {
  let winner = contributions[0];
  if (winner === undefined) throw new Error('evaluatePolicy: no contribution (default always contributes)');
  for (const contribution of contributions) {
    if (DECISION_STRICTNESS[contribution.decision] > DECISION_STRICTNESS[winner.decision]) winner = contribution;
  }
  return winner;
}

/** A request the daemon builds wrongly is a programmer error: crash rather than decide on it. */
function assertRequest(request: PolicyRequest): void {
  if (request.isOwner !== (request.agent === OWNER_AGENT)) throw new Error('evaluatePolicy: isOwner must be true exactly when agent is "owner"');
  if (!Number.isSafeInteger(request.amountMinor) || request.amountMinor < 0) throw new Error('evaluatePolicy: amountMinor must be a non-negative safe integer');
  if (!Number.isSafeInteger(request.nowSeconds)) throw new Error('evaluatePolicy: nowSeconds must be a safe integer');
}

function safeSum(a: number, b: number): number {
  const sum = a + b;
  if (!Number.isSafeInteger(sum)) throw new Error('evaluatePolicy: amount sum is not a safe integer');
  return sum;
}

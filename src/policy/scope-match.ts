import { ANY_AGENT, OWNER_AGENT } from './policy-scope-fields.js';
import type { PolicyScope } from './policy-types.js';

/** The facts a scope is matched against: who, which card, where, in which currency. */
export interface ScopeFacts {
  /** `owner` for the daemon token, else the agent's name. */
  readonly agent: string;
  readonly cardId: string | null;
  /** The normalized merchant domain. */
  readonly merchant: string;
  readonly currency: string;
  /**
   * Set for an x402 payment, which has no card at all (not "any card", as an account-wide window):
   * a scope that lists cards never covers it.
   */
  readonly cardless?: true;
  /** An x402 payment's payee, in comparison form: with the merchant, what new_merchant knows (merchantKeyOf). */
  readonly payTo?: string;
}

/**
 * merchantKeyOf is what new_merchant calls known or new: the merchant, or for an x402 payment the
 * pair host + payTo, so a known host paying a new address is new (shared/spec/x402.md §2).
 */
export function merchantKeyOf(facts: { merchant: string; payTo?: string | undefined }): string {
  return facts.payTo === undefined ? facts.merchant : `${facts.merchant} pay_to ${facts.payTo}`;
}

/**
 * agentListed reports whether `agent` is in `agents`: `owner` only for the daemon token, `*` for
 * every agent but never the owner, and a name for that agent.
 */
export function agentListed(agents: readonly string[], agent: string): boolean {
  if (agent === OWNER_AGENT) return agents.includes(OWNER_AGENT);
  return agents.includes(ANY_AGENT) || agents.includes(agent);
}

/**
 * merchantPatternMatches reports whether a normalized merchant is `pattern` exactly or, for
 * `*.domain`, a strict subdomain of it: `*.grocer.example` covers `a.grocer.example` and
 * `a.b.grocer.example`, never `grocer.example` nor `evilgrocer.example`.
 */
export function merchantPatternMatches(pattern: string, merchant: string): boolean {
  if (!pattern.startsWith('*.')) return merchant === pattern;
  const suffix = pattern.slice(1);
  return merchant.length > suffix.length && merchant.endsWith(suffix);
}

/** scopeMatches reports whether every condition the scope has holds for the facts. */
export function scopeMatches(scope: PolicyScope, facts: ScopeFacts): boolean {
  if (scope.agents !== undefined && !agentListed(scope.agents, facts.agent)) return false;
  if (scope.cards !== undefined && (facts.cardId === null || !scope.cards.includes(facts.cardId))) return false;
  if (scope.merchants !== undefined && !scope.merchants.some((pattern) => merchantPatternMatches(pattern, facts.merchant))) return false;
  if (scope.currencies !== undefined && !scope.currencies.includes(facts.currency)) return false;
  return true;
}

/**
 * budgetCovers reports whether a budget or a velocity limit counts an authorization. It is
 * scopeMatches, except that an authorization without a card (an account-wide window,
 * `/sign-policy-window`) counts against a card-scoped limit whenever the rest of the scope holds:
 * it can be charged on any card of the account, so on each listed card too, and a card's limit
 * that skipped it would cap nothing (docs/decisions.md §27.6). It keeps counting there after it
 * is charged, on whichever card. Rules that ask or deny use it too (evaluate.ts ruleMatches).
 */
export function budgetCovers(budget: PolicyScope, facts: ScopeFacts): boolean {
  if (facts.cardId !== null || budget.cards === undefined || facts.cardless === true) return scopeMatches(budget, facts);
  const { cards: _cards, ...anyCard } = budget;
  return scopeMatches(anyCard, facts);
}

/**
 * The decision step of an authorization: whether the daemon may sign what a caller asked for.
 * Without a spending policy every request is allowed; with one (src/policy/policy-gate.ts) the
 * answer is allow, ask (the owner must approve) or deny, with the rule that decided.
 */
import type { AccountWindowRequest, AuthorizationRequest } from './authorization-request.js';
import type { OperationContext } from './operation-context.js';

/** What the decision step answers; ask and deny name the rule or limit that decided and why. */
export type AuthorizationDecision =
  | { decision: 'allow'; basis?: DecisionBasis }
  | { decision: 'ask'; rule: string; reasons: string[]; approvalTtlSeconds?: number }
  | { decision: 'deny'; rule: string; reasons: string[] };

/**
 * Why a request was allowed, as the evidence pack shows it (docs/decisions.md §22): what the
 * policy answered (`ask` when the owner's approval satisfied it), the rule that decided, every
 * reason, and the SHA-256 of the policy that decided.
 */
export interface DecisionBasis {
  decision: 'allow' | 'ask';
  rule: string;
  reasons: string[];
  policySha256: string;
}

/**
 * What the pipeline has fixed before deciding: the policy id the window will carry (an allowed
 * request's budget reservation is kept under it) and the time the window is signed at.
 */
export interface DecisionFacts {
  policyId: string;
  nowSeconds: number;
  /**
   * Set when the owner approved this exact request (docs/decisions.md §15.4): the approval satisfies an
   * `ask`, so the step must reserve and allow unless something now denies it outright.
   */
  approvalId?: string;
  /**
   * Set for the owner's signing primitives, which only the owner (with presence, once a factor is
   * configured) may call: presence satisfies an `ask` as an approval does; a deny stays final
   * (docs/decisions.md §21).
   */
  ownerPresent?: true;
  /**
   * Set when the window was signed earlier under this policy id and is about to be sent again from
   * the signed-window cache (docs/decisions.md §17.1): decide against the policy now, without the
   * window's own reservation, and reserve nothing.
   */
  replay?: true;
}

/**
 * What the decision step decides: an authorization request, or an account-wide window
 * (/sign-policy-window), which names no card (so no rule or budget scoped to cards matches it).
 */
export type DecisionRequest = AuthorizationRequest | (AccountWindowRequest & { kind: 'one_time'; cardId: null });

/**
 * A decision step: it sees the exact request and who asked, and signs nothing. When it allows,
 * it may have reserved the amount under facts.policyId; the pipeline then records that id in the
 * authorization ledger, whose `failed` state cancels the reservation.
 */
export type DecideAuthorization = (request: DecisionRequest, context: OperationContext, facts: DecisionFacts) => AuthorizationDecision | Promise<AuthorizationDecision>;

/** allowEverything allows every request: a decision step for a caller (a test) that says so by name. */
export const allowEverything: DecideAuthorization = () => ({ decision: 'allow' });

/**
 * Reading the policy against the history without deciding (docs/decisions.md §28.12): what a
 * request would get now (`POST /policy/check`), what it would get under a candidate policy (the
 * console's editor), and every budget's and velocity limit's standing (the console's spending).
 * Each reads the gate's usage and reserves nothing; the decision itself is PolicyGate.decide.
 */
import { checkRequest, type AuthorizationRequest } from '../core/authorization-request.js';
import { evaluatePolicy, type PolicyEvaluation } from '../policy/evaluate.js';
import { toPolicyRequest, type PolicyGate } from '../policy/policy-gate.js';
import type { Policy, PolicyBudget, PolicyVelocity } from '../policy/policy-types.js';

/** Every budget's exposure and every velocity limit's count at one moment. */
export interface PolicyStandings {
  readonly budgets: ReadonlyArray<{ readonly budget: PolicyBudget; readonly exposureMinor: number }>;
  readonly velocity: ReadonlyArray<{ readonly velocity: PolicyVelocity; readonly count: number }>;
}

/**
 * checkPolicy evaluates a request for `agent` (`owner` or an agent's name) under the policy in
 * force. The request meets the same business rules first as one that would be signed, so a check
 * never answers `allow` for a request the pipeline would refuse as malformed.
 */
export function checkPolicy(gate: PolicyGate, request: AuthorizationRequest, agent: string, nowSeconds: number): PolicyEvaluation {
  checkRequest(request, nowSeconds);
  const { policy, usage } = gate.usageNow();
  return evaluatePolicy(policy, toPolicyRequest(request, agent, nowSeconds), usage);
}

/** dryRunPolicy evaluates a request under a candidate policy that is not in force, over the same history. */
export function dryRunPolicy(gate: PolicyGate, candidate: Policy, request: AuthorizationRequest, agent: string, nowSeconds: number): PolicyEvaluation {
  checkRequest(request, nowSeconds);
  return evaluatePolicy(candidate, toPolicyRequest(request, agent, nowSeconds), gate.usageUnder(candidate));
}

/** policyStandings is every budget's exposure and every velocity limit's count now: the numbers the next decision would see. */
export function policyStandings(gate: PolicyGate, nowSeconds: number): PolicyStandings {
  const { policy, usage } = gate.usageNow();
  return {
    budgets: policy.budgets.map((budget) => ({ budget, exposureMinor: usage.exposure(budget, nowSeconds) })),
    velocity: policy.velocity.map((velocity) => ({ velocity, count: usage.count(velocity, nowSeconds) })),
  };
}

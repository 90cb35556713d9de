/**
 * The spending policy's merchant deny rules, applied to the host an agent presents itself at
 * (docs/decisions.md §23.4): an agent cannot sign in at a merchant it may never pay. A rule counts
 * when it denies, lists merchants one of which matches the host, and names no condition an
 * identity lacks (card, currency, kind, amount): such a rule refuses every payment there, so it
 * refuses the identity too. A rule with such a condition only denies some payments, and does not.
 */
import type { Policy, PolicyRule } from '../policy/policy-types.js';
import { agentListed, merchantPatternMatches } from '../policy/scope-match.js';

/** deniedHostRule returns the id of the first merchant deny rule that covers agent at host, or undefined. */
export function deniedHostRule(policy: Policy, agent: string, host: string): string | undefined {
  return policy.rules.find((rule) => isMerchantDeny(rule) && coversAgentAtHost(rule, agent, host))?.id;
}

function isMerchantDeny(rule: PolicyRule): boolean {
  return (
    rule.decision === 'deny' &&
    rule.merchants !== undefined &&
    rule.cards === undefined &&
    rule.currencies === undefined &&
    rule.kinds === undefined &&
    rule.minAmountMinor === undefined &&
    rule.maxAmountMinor === undefined
  );
}

function coversAgentAtHost(rule: PolicyRule, agent: string, host: string): boolean {
  if (rule.agents !== undefined && !agentListed(rule.agents, agent)) return false;
  return (rule.merchants ?? []).some((pattern) => merchantPatternMatches(pattern, host));
}

/**
 * What an agent is told when the owner's spending policy stands in its way. The policy is
 * enforced in the daemon, so these words are not the protection; they keep a well-meaning agent
 * from wasting the user's time trying other terms, and make it tell the user what happened.
 */
import type { LatchClientError } from '../client/client-errors.js';
import { approvalDeniedGuidance } from './approval-guidance.js';

/** policyGuidance returns the lines an MCP tool error adds for a policy code, or none. */
export function policyGuidance(error: LatchClientError): string[] {
  switch (error.code) {
    case 'policy_denied':
      return [
        `The owner's spending policy refused this request (rule ${error.rule ?? 'unknown'}). Nothing was signed.`,
        ...(error.reasons === undefined || error.reasons.length === 0 ? [] : [`Why: ${error.reasons.join('; ')}`]),
        'You must not retry with other terms to get around it: not another merchant, not a smaller or split amount, not a longer TTL or another card.',
        `Tell the user that rule ${error.rule ?? 'unknown'} of their spending policy refused it; only the owner can change the policy.`,
      ];
    case 'policy_invalid':
      return [
        `The owner's policy file (policy.json) is broken${error.param === undefined ? '' : ` at ${error.param}`}, so the daemon signs nothing the policy governs until the owner fixes it.`,
        'Tell the user; they can see the problem with `latch policy check-file`. Do not retry until they say it is fixed.',
      ];
    case 'approval_denied':
      return approvalDeniedGuidance();
    default:
      return [];
  }
}

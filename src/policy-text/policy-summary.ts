import type { Policy } from '../policy/policy-types.js';

/** policySummary counts a policy's entries in words: "1 rule, 2 budgets, 0 velocity limits". */
export function policySummary(policy: Pick<Policy, 'rules' | 'budgets' | 'velocity'>): string {
  return [countOf(policy.rules.length, 'rule'), countOf(policy.budgets.length, 'budget'), countOf(policy.velocity.length, 'velocity limit')].join(', ');
}

/** countOf writes a count with its noun in the right number: "1 rule", "2 rules". */
export function countOf(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

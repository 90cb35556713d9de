/**
 * Warnings about a valid policy: rules that can never change a decision (docs/decisions.md §31.1).
 * The common one reads like a cap and is not: `{"merchants": ["books.example"], "max_amount":
 * "20.00", "decision": "allow"}` with `"default": "allow"` — a 30.00 request does not match the
 * rule and the default allows it. A warning never makes a file invalid; it says what would work.
 */
import { elementPath } from '../policy/policy-invalid-error.js';
import { DECISION_STRICTNESS, type Policy, type PolicyRule } from '../policy/policy-types.js';

/** One warning: the rule's path in the file (`rules[2]`), its id and a sentence saying why and what would work. */
export interface PolicyWarning {
  readonly field: string;
  readonly id: string;
  readonly message: string;
}

/** What would make a limit real, said once so every warning offers the same patterns. */
const CAP_PATTERNS = 'to cap amounts, add a rule with min_amount and "decision": "deny" (or "ask"), or a budget (docs/policy.md, "Caps")';

/** What the default does to a request no rule matches, as a verb. */
const DEFAULT_VERB: Readonly<Record<Policy['default'], string>> = { allow: 'allows', ask: 'asks the owner about', deny: 'denies' };

/**
 * policyWarnings lists every rule that can never change a decision. A matching rule adds its
 * decision and silences `default`; the strictest contribution wins. So a rule whose decision equals
 * `default`, in a file with no rule less strict than it, decides exactly what its absence would:
 * where it matches, the outcome is that decision or something stricter either way.
 */
export function policyWarnings(policy: Pick<Policy, 'default' | 'rules'>): PolicyWarning[] {
  const warnings: PolicyWarning[] = [];
  policy.rules.forEach((rule, index) => {
    if (neverChangesADecision(rule, policy)) warnings.push({ field: elementPath('rules', index), id: rule.id, message: inertMessage(rule, policy.default) });
    if (gatesOneTimeOnly(rule)) warnings.push({ field: elementPath('rules', index), id: rule.id, message: mandatesGatedMessage(rule) });
  });
  return warnings;
}

/**
 * gatesOneTimeOnly: a rule that asks or denies on `one_time` but does not name `ap2_mandate`
 * (shared/spec/ap2-mandates.md §6). It judges AP2 mandates anyway, since each registers a one-time
 * card window; the warning says so, so the owner reading the file is not surprised by it.
 */
function gatesOneTimeOnly(rule: PolicyRule): boolean {
  return rule.decision !== 'allow' && rule.kinds !== undefined && rule.kinds.includes('one_time') && !rule.kinds.includes('ap2_mandate');
}

function mandatesGatedMessage(rule: PolicyRule): string {
  return `rule ${rule.id} gates one_time but does not name ap2_mandate: it judges AP2 mandates too, since each registers a one-time card window (docs/policy.md, "Kinds"). Add "ap2_mandate" to its kinds to say so.`;
}

function neverChangesADecision(rule: PolicyRule, policy: Pick<Policy, 'default' | 'rules'>): boolean {
  if (rule.decision !== policy.default) return false;
  const strictness = DECISION_STRICTNESS[rule.decision];
  return policy.rules.every((other) => DECISION_STRICTNESS[other.decision] >= strictness);
}

function inertMessage(rule: PolicyRule, fallback: Policy['default']): string {
  const notACap =
    rule.maxAmountMinor === undefined ? '' : ` Its max_amount is not a cap: a larger request does not match the rule, and the default ${DEFAULT_VERB[fallback]} it.`;
  return `rule ${rule.id} can never change a decision: it says ${rule.decision}, as the default does, and no rule says less.${notACap} ${capitalized(CAP_PATTERNS)}.`;
}

function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

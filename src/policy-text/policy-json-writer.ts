import { formatMinor } from '../money/amount.js';
import { amountDecimals } from '../policy/policy-scope-fields.js';
import type { Policy, PolicyScope } from '../policy/policy-types.js';
import { assetWire, BUILT_IN_X402_ASSETS } from '../x402/assets.js';

/**
 * policyToJson writes the effective policy back in policy.json's shape (amounts as decimal
 * strings, defaults filled in), for `GET /policy`.
 */
export function policyToJson(policy: Policy): Record<string, unknown> {
  return {
    v: policy.v,
    default: policy.default,
    new_merchant: policy.newMerchant,
    approval_ttl_seconds: policy.approvalTtlSeconds,
    rules: policy.rules.map((rule) => ({
      id: rule.id,
      ...scopeJson(rule),
      ...(rule.kinds === undefined ? {} : { kinds: [...rule.kinds] }),
      ...(rule.networks === undefined ? {} : { networks: [...rule.networks] }),
      ...(rule.payTo === undefined ? {} : { pay_to: [...rule.payTo] }),
      ...(rule.minAmountMinor === undefined ? {} : { min_amount: formatMinor(rule.minAmountMinor, amountDecimals(rule, rule.id)) }),
      ...(rule.maxAmountMinor === undefined ? {} : { max_amount: formatMinor(rule.maxAmountMinor, amountDecimals(rule, rule.id)) }),
      decision: rule.decision,
    })),
    budgets: policy.budgets.map((budget) => ({
      id: budget.id,
      ...scopeJson(budget),
      per: budget.per,
      limit: formatMinor(budget.limitMinor, amountDecimals(budget, budget.id)),
      over: budget.over,
    })),
    velocity: policy.velocity.map((velocity) => ({
      id: velocity.id,
      ...scopeJson(velocity),
      per_seconds: velocity.perSeconds,
      max_count: velocity.maxCount,
      over: velocity.over,
    })),
    // Declared assets only: the built-in table is what no declaration means.
    ...(policy.x402Assets !== BUILT_IN_X402_ASSETS && { x402: { assets: policy.x402Assets.map(assetWire) } }),
  };
}

function scopeJson(scope: PolicyScope): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  if (scope.agents !== undefined) out.agents = [...scope.agents];
  if (scope.cards !== undefined) out.cards = [...scope.cards];
  if (scope.merchants !== undefined) out.merchants = [...scope.merchants];
  if (scope.currencies !== undefined) out.currencies = [...scope.currencies];
  return out;
}

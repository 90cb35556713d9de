/**
 * The benchmark's policy (bench/policy-history.ts) is what its row says: a valid policy.json of
 * 100 rules and 20 budgets that allows the benchmark's request, so the row measures the cost of
 * deciding, never a denial. No timing here.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { benchPolicyText, POLICY_BUDGETS, POLICY_RULES } from '../../bench/policy-history.js';
import { BENCH_MERCHANT } from '../../bench/requests.js';
import { evaluatePolicy } from '../../src/policy/evaluate.js';
import { parsePolicyBytes } from '../../src/policy/policy-file.js';
import { UsageLedger } from '../../src/policy/usage-ledger.js';

test('the benchmark policy parses, has 100 rules and 20 budgets, and allows the benchmark request', () => {
  const policy = parsePolicyBytes(new TextEncoder().encode(benchPolicyText()));
  assert.equal(policy.rules.length, POLICY_RULES);
  assert.equal(policy.budgets.length, POLICY_BUDGETS);
  const request = { agent: 'owner', isOwner: true, kind: 'one_time', cardId: 'card_a', merchant: BENCH_MERCHANT, currency: 'USD', amountMinor: 100, nowSeconds: 1_800_000_000 } as const;
  const evaluation = evaluatePolicy(policy, request, new UsageLedger(policy));
  assert.equal(evaluation.decision, 'allow');
  assert.equal(evaluation.rule, 'bench-merchant');
  assert.ok(evaluation.budgets.length >= POLICY_BUDGETS / 2, 'half the budgets cover the benchmark request');
});

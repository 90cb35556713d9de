import { test } from 'node:test';
import assert from 'node:assert/strict';
import { evaluatePolicy } from '../../src/policy/evaluate.js';
import { parsePolicyText } from '../../src/policy/policy-file.js';
import { STARTER_POLICY_TEXT } from '../../src/policy-text/starter-policy.js';
import { UsageLedger } from '../../src/policy/usage-ledger.js';
import { request } from '../policy/policy-fixtures.js';

test('the starter policy parses and shows every kind of entry', () => {
  const policy = parsePolicyText(STARTER_POLICY_TEXT);
  assert.equal(policy.default, 'allow');
  assert.equal(policy.newMerchant, 'ask');
  assert.ok(policy.rules.length >= 2);
  assert.deepEqual(policy.budgets.map((b) => b.per), ['day']);
  assert.equal(policy.velocity.length, 1);
});

test('the starter policy decides as its comment says', () => {
  const policy = parsePolicyText(STARTER_POLICY_TEXT);
  const ledger = new UsageLedger(policy);
  ledger.markMerchantKnown('grocer.example');
  ledger.markMerchantKnown('shop.example');
  const decide = (overrides: Parameters<typeof request>[0]) => {
    const result = evaluatePolicy(policy, request(overrides), ledger);
    return [result.decision, result.rule];
  };
  assert.deepEqual(decide({}), ['allow', 'default']);
  assert.deepEqual(decide({ amountMinor: 5_000 }), ['allow', 'default']);
  assert.deepEqual(decide({ amountMinor: 5_001 }), ['deny', 'everyday-shops-cap']);
  assert.deepEqual(decide({ amountMinor: 5_001, merchant: 'shop.example' }), ['allow', 'default']);
  assert.deepEqual(decide({ merchant: 'new.example' }), ['ask', 'new_merchant']);
  assert.deepEqual(decide({ amountMinor: 10_000, merchant: 'shop.example' }), ['ask', 'large-purchases']);
  assert.deepEqual(decide({ kind: 'recurring' }), ['deny', 'no-agent-subscriptions']);
  assert.deepEqual(decide({ agent: 'owner', isOwner: true, kind: 'recurring' }), ['allow', 'default']);
  assert.deepEqual(decide({ amountMinor: 20_001, agent: 'owner', isOwner: true }), ['ask', 'large-purchases']);
});

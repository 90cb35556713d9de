import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { evaluatePolicy, ruleMatches, type PolicyRequest } from '../../src/policy/evaluate.js';
import { parsePolicyText } from '../../src/policy/policy-file.js';
import { DEFAULT_POLICY } from '../../src/policy/policy-file.js';
import { UsageLedger } from '../../src/policy/usage-ledger.js';
import { normalizeMerchant } from '../../src/validate/merchant.js';
import { SPEC_POLICY, T0, entry, request } from './policy-fixtures.js';

/** ledgerKnowing is a ledger for `policy` where the listed merchants already had a used authorization. */
function ledgerKnowing(policy: ReturnType<typeof parsePolicyText>, merchants: string[] = ['grocer.example']): UsageLedger {
  const ledger = new UsageLedger(policy);
  for (const merchant of merchants) ledger.markMerchantKnown(merchant);
  return ledger;
}

test('spec example: decisions and the reported rule', async (t) => {
  const policy = parsePolicyText(SPEC_POLICY);
  const known = ['grocer.example', 'a.grocer.example', 'a.b.grocer.example', 'evilgrocer.example', 'shop.example'];
  const cases: Array<[string, Partial<PolicyRequest>, string, string]> = [
    ['groceries within max', { amountMinor: 1_200 }, 'allow', 'groceries'],
    ['groceries at a subdomain', { merchant: 'a.grocer.example' }, 'allow', 'groceries'],
    ['groceries at a deeper subdomain', { merchant: 'a.b.grocer.example' }, 'allow', 'groceries'],
    ['look-alike domain: no rule, default', { merchant: 'evilgrocer.example' }, 'allow', 'default'],
    ['large at the grocer: ask beats allow', { amountMinor: 6_000 }, 'ask', 'large'],
    ['exactly min_amount asks', { amountMinor: 5_000, merchant: 'shop.example' }, 'ask', 'large'],
    ['one minor unit under min_amount is allowed', { amountMinor: 4_999, merchant: 'shop.example' }, 'allow', 'default'],
    ['exactly max_amount still matches groceries', { amountMinor: 15_000 }, 'ask', 'large'],
    ['recurring for shopper is denied', { kind: 'recurring' }, 'deny', 'no-subscriptions'],
    ['recurring for the owner falls to default', { agent: 'owner', isOwner: true, kind: 'recurring' }, 'allow', 'default'],
    ['another agent at the grocer: default', { agent: 'other' }, 'allow', 'default'],
    ['a new merchant asks', { merchant: 'new.example' }, 'ask', 'new_merchant'],
    ['a new merchant under a matching allow rule still asks', { merchant: 'fresh.grocer.example' }, 'ask', 'new_merchant'],
    ['deny beats new_merchant ask', { merchant: 'fresh.grocer.example', kind: 'recurring' }, 'deny', 'no-subscriptions'],
    ['a single request over the daily budget is denied, though large only asks', { amountMinor: 20_001, merchant: 'shop.example' }, 'deny', 'shopper-daily'],
  ];
  for (const [name, overrides, decision, rule] of cases) {
    await t.test(name, () => {
      const result = evaluatePolicy(policy, request(overrides), ledgerKnowing(policy, known));
      assert.deepEqual([result.decision, result.rule], [decision, rule]);
    });
  }
});

test('a budget reports exposure, limit and remaining in minor units, and its reason', () => {
  const policy = parsePolicyText(SPEC_POLICY);
  const ledger = ledgerKnowing(policy);
  ledger.reserve(entry({ amountMinor: 19_000 }));
  const result = evaluatePolicy(policy, request({ amountMinor: 1_001 }), ledger);
  assert.deepEqual([result.decision, result.rule], ['deny', 'shopper-daily']);
  assert.ok(result.reasons.includes('budget shopper-daily (deny): 190.00 of 200.00 used; 10.01 would exceed it'), result.reasons.join(' | '));
  assert.deepEqual(result.budgets, [
    { id: 'shopper-daily', limit: 20_000, exposure: 19_000, remaining: 1_000 },
    { id: 'everyone-monthly', limit: 100_000, exposure: 19_000, remaining: 81_000 },
  ]);
});

test('reasons: a sentence per contribution, naming the conditions that held', () => {
  const policy = parsePolicyText(SPEC_POLICY);
  const result = evaluatePolicy(policy, request({ amountMinor: 6_000 }), ledgerKnowing(policy));
  assert.deepEqual(result.reasons, [
    'rule groceries (allow): caller shopper is listed, merchant grocer.example is listed, amount 60.00 is at most 150.00',
    'rule large (ask): amount 60.00 is at least 50.00',
  ]);
  const fallback = evaluatePolicy(policy, request({ agent: 'owner', isOwner: true, merchant: 'new.example' }), ledgerKnowing(policy));
  assert.deepEqual(fallback.reasons, ['no rule matched; default is allow', 'merchant new.example is new on this device; new_merchant is ask']);
});

/** One rule per condition, and requests on both sides of it. */
const conditionCases: Array<[string, string, Partial<PolicyRequest>, boolean]> = [
  ['no conditions', '{}', {}, true],
  ['agent listed', '{"agents":["shopper"]}', {}, true],
  ['agent not listed', '{"agents":["other"]}', {}, false],
  ['"*" covers any agent', '{"agents":["*"]}', { agent: 'whoever' }, true],
  ['"*" never covers the owner', '{"agents":["*"]}', { agent: 'owner', isOwner: true }, false],
  ['"owner" covers the owner', '{"agents":["owner"]}', { agent: 'owner', isOwner: true }, true],
  ['"owner" covers no agent', '{"agents":["owner"]}', {}, false],
  ['a name never covers the owner', '{"agents":["shopper"]}', { agent: 'owner', isOwner: true }, false],
  ['card listed', '{"cards":["card_a1"]}', {}, true],
  ['card not listed', '{"cards":["card_b2"]}', {}, false],
  ['card condition, request without card', '{"cards":["card_a1"]}', { cardId: null }, false],
  ['kind listed', '{"kinds":["one_time","recurring"]}', {}, true],
  ['kind not listed', '{"kinds":["recurring"]}', { kind: 'merchant_verification' }, false],
  ['currency listed', '{"currencies":["USD"]}', {}, true],
  ['currency not listed', '{"currencies":["EUR"]}', {}, false],
  ['min_amount: equal', '{"min_amount":"10.00"}', { amountMinor: 1_000 }, true],
  ['min_amount: one under', '{"min_amount":"10.00"}', { amountMinor: 999 }, false],
  ['max_amount: equal', '{"max_amount":"10.00"}', { amountMinor: 1_000 }, true],
  ['max_amount: one over', '{"max_amount":"10.00"}', { amountMinor: 1_001 }, false],
  ['max_amount 0 matches a zero verification', '{"max_amount":"0"}', { amountMinor: 0, kind: 'merchant_verification' }, true],
  ['all conditions hold', '{"agents":["shopper"],"cards":["card_a1"],"merchants":["grocer.example"],"kinds":["one_time"],"currencies":["USD"],"min_amount":"1","max_amount":"10"}', {}, true],
  ['all but one hold', '{"agents":["shopper"],"cards":["card_a1"],"merchants":["grocer.example"],"kinds":["one_time"],"currencies":["USD"],"min_amount":"1","max_amount":"9.99"}', {}, false],
];
for (const [name, conditions, overrides, matches] of conditionCases) {
  test(`rule condition: ${name} → ${matches ? 'matches' : 'does not match'}`, () => {
    const policy = parsePolicyText(`{"v":1,"rules":[{"id":"r",${conditions.slice(1, -1)}${conditions === '{}' ? '' : ','}"decision":"deny"}]}`);
    const rule = policy.rules[0];
    assert.ok(rule);
    assert.equal(ruleMatches(rule, request(overrides)), matches);
    const result = evaluatePolicy(policy, request(overrides), ledgerKnowing(policy, ['grocer.example']));
    assert.equal(result.rule, matches ? 'r' : 'default');
  });
}

/** [merchant pattern in the file, merchant as a caller typed it, matches]; the request side is normalized as the HTTP edge does. */
const merchantCases: Array<[string, string, boolean]> = [
  ['*.grocer.example', 'grocer.example', false],
  ['*.grocer.example', 'a.grocer.example', true],
  ['*.grocer.example', 'a.b.grocer.example', true],
  ['*.grocer.example', 'evilgrocer.example', false],
  ['*.grocer.example', 'a.evilgrocer.example', false],
  ['*.grocer.example', 'grocer.example.evil.example', false],
  ['*.grocer.example', 'A.GROCER.EXAMPLE.', true],
  ['*.grocer.example', 'a.grосer.example', false],
  ['grocer.example', 'grocer.example', true],
  ['grocer.example', 'GROCER.Example.', true],
  ['grocer.example', 'a.grocer.example', false],
  ['grocer.example', 'grосer.example', false],
  ['grocer.example', 'grocer.example.evil.example', false],
  ['Grocer.Example.', 'grocer.example', true],
  ['grосer.example', 'grосer.example', true],
  ['grосer.example', 'grocer.example', false],
  ['*.xn--grer-65ds.example', 'shop.grосer.example', true],
];
for (const [pattern, typed, matches] of merchantCases) {
  test(`merchant pattern ${JSON.stringify(pattern)} vs ${JSON.stringify(typed)} → ${matches}`, () => {
    const policy = parsePolicyText(`{"v":1,"rules":[{"id":"m","merchants":[${JSON.stringify(pattern)}],"decision":"deny"}]}`);
    const merchant = normalizeMerchant(typed);
    const result = evaluatePolicy(policy, request({ merchant }), ledgerKnowing(policy, [merchant]));
    assert.equal(result.rule, matches ? 'm' : 'default');
  });
}

/** Strictest wins; ties report the first in order: rules, new_merchant, budgets, velocity. */
const strictnessCases: Array<[string, string, string, string]> = [
  ['two asks: the first in file order', '"rules":[{"id":"a","decision":"allow"},{"id":"b","decision":"ask"},{"id":"c","decision":"ask"},{"id":"d","decision":"allow"}]', 'ask', 'b'],
  ['deny last in file still wins', '"rules":[{"id":"a","decision":"ask"},{"id":"b","decision":"allow"},{"id":"c","decision":"deny"}]', 'deny', 'c'],
  ['all allow: the first', '"rules":[{"id":"a","decision":"allow"},{"id":"b","decision":"allow"}]', 'allow', 'a'],
  ['a rule deny before a budget deny', '"rules":[{"id":"r","decision":"deny"}],"budgets":[{"id":"b","per":"day","limit":"1.00","over":"deny"}]', 'deny', 'r'],
  ['a budget ask loses to a velocity deny', '"budgets":[{"id":"b","per":"day","limit":"1.00","over":"ask"}],"velocity":[{"id":"v","per_seconds":60,"max_count":1,"over":"deny"}]', 'deny', 'v'],
  ['a budget deny before a velocity deny', '"budgets":[{"id":"b","per":"day","limit":"1.00","over":"deny"}],"velocity":[{"id":"v","per_seconds":60,"max_count":1,"over":"deny"}]', 'deny', 'b'],
  ['default deny before new_merchant deny', '"default":"deny","new_merchant":"deny"', 'deny', 'default'],
  ['default ask before new_merchant ask', '"default":"ask","new_merchant":"ask"', 'ask', 'default'],
  ['default allow, new_merchant ask', '"new_merchant":"ask"', 'ask', 'new_merchant'],
  ['a rule ask before new_merchant ask', '"new_merchant":"ask","rules":[{"id":"r","decision":"ask"}]', 'ask', 'r'],
  ['new_merchant ask before a budget ask', '"new_merchant":"ask","budgets":[{"id":"b","per":"day","limit":"1.00","over":"ask"}]', 'ask', 'new_merchant'],
  ['default deny even when a budget asks', '"default":"deny","budgets":[{"id":"b","per":"day","limit":"1.00","over":"ask"}]', 'deny', 'default'],
  ['a matching rule replaces default', '"default":"deny","rules":[{"id":"r","decision":"allow"}]', 'allow', 'r'],
];
for (const [name, body, decision, rule] of strictnessCases) {
  test(`strictest wins: ${name}`, () => {
    const policy = parsePolicyText(`{"v":1,${body}}`);
    const ledger = new UsageLedger(policy);
    // One earlier authorization of 5.00 at another merchant: every budget above is then over, every velocity at its count.
    ledger.reserve(entry({ merchant: 'other.example', amountMinor: 500, atSeconds: T0 - 10 }));
    const result = evaluatePolicy(policy, request({ merchant: 'new.example' }), ledger);
    assert.deepEqual([result.decision, result.rule], [decision, rule]);
  });
}

test('with no policy file every request is allowed by default', () => {
  const result = evaluatePolicy(DEFAULT_POLICY, request({ amountMinor: 1_000_000, merchant: 'new.example' }), new UsageLedger(DEFAULT_POLICY));
  assert.deepEqual(result, { decision: 'allow', rule: 'default', reasons: ['no rule matched; default is allow'], budgets: [] });
});

test('a request that mixes up owner and agent is a programmer error', () => {
  const ledger = new UsageLedger(DEFAULT_POLICY);
  assert.throws(() => evaluatePolicy(DEFAULT_POLICY, request({ agent: 'owner', isOwner: false }), ledger), /isOwner/);
  assert.throws(() => evaluatePolicy(DEFAULT_POLICY, request({ agent: 'shopper', isOwner: true }), ledger), /isOwner/);
  assert.throws(() => evaluatePolicy(DEFAULT_POLICY, request({ amountMinor: 1.5 }), ledger), /amountMinor/);
});

test("docs/policy.md's worked example decides as its table says", () => {
  // The policy is read from the document itself, so the example and this test cannot drift apart.
  const doc = readFileSync(new URL('../../docs/policy.md', import.meta.url), 'utf8');
  const example = /## A worked example\n[\s\S]*?```json\n([\s\S]*?)```/.exec(doc)?.[1];
  assert.ok(example !== undefined, 'docs/policy.md has no worked example');
  const policy = parsePolicyText(example);
  const ledger = ledgerKnowing(policy, ['grocer.example', 'evilgrocer.example']);
  ledger.reserve(entry({ amountMinor: 18_000, atSeconds: T0 - 7_200 }));
  const rows: Array<[Partial<PolicyRequest>, string, string]> = [
    [{ amountMinor: 1_200 }, 'allow', 'default'],
    [{ amountMinor: 1_200, merchant: 'evilgrocer.example' }, 'allow', 'default'],
    [{ amountMinor: 1_200, merchant: 'new.grocer.example' }, 'ask', 'new_merchant'],
    [{ amountMinor: 6_000 }, 'deny', 'shopper-daily'],
    [{ amountMinor: 2_000 }, 'allow', 'default'],
    [{ amountMinor: 16_000 }, 'deny', 'groceries-cap'],
    [{ amountMinor: 500, kind: 'recurring' }, 'deny', 'no-subscriptions'],
    [{ amountMinor: 6_000, agent: 'owner', isOwner: true }, 'ask', 'large'],
  ];
  for (const [overrides, decision, rule] of rows) {
    const result = evaluatePolicy(policy, request(overrides), ledger);
    assert.deepEqual([result.decision, result.rule], [decision, rule], JSON.stringify(overrides));
  }
});

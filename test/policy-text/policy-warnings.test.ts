import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { evaluatePolicy, type PolicyUsage } from '../../src/policy/evaluate.js';
import { parsePolicyText } from '../../src/policy/policy-file.js';
import { policyWarnings } from '../../src/policy-text/policy-warnings.js';
import type { Policy, PolicyDecision } from '../../src/policy/policy-types.js';
import { STARTER_POLICY_TEXT } from '../../src/policy-text/starter-policy.js';
import { request } from '../policy/policy-fixtures.js';

const NO_HISTORY: PolicyUsage = { merchantKnown: () => true, exposure: () => 0, count: () => 0 };

test("an allow rule's max_amount under default allow is named as no cap, with what would cap", () => {
  const policy = parsePolicyText(
    '{"v":1,"default":"allow","rules":[{"id":"books-cap","merchants":["books.example.com"],"max_amount":"20.00","decision":"allow"}]}',
  );
  // The case: 30.00 at books.example.com is allowed by the default; the rule changed nothing.
  const decided = evaluatePolicy(policy, request({ merchant: 'books.example.com', amountMinor: 3_000 }), NO_HISTORY);
  assert.deepEqual([decided.decision, decided.rule], ['allow', 'default']);
  const warnings = policyWarnings(policy);
  assert.equal(warnings.length, 1);
  assert.equal(warnings[0]?.field, 'rules[0]');
  assert.equal(warnings[0]?.id, 'books-cap');
  assert.match(warnings[0]?.message ?? '', /can never change a decision/);
  assert.match(warnings[0]?.message ?? '', /max_amount is not a cap/);
  assert.match(warnings[0]?.message ?? '', /min_amount and "decision": "deny".*or a budget/);
});

test('rules that change decisions are not warned about', () => {
  const cases: Array<[string, string]> = [
    ['an allow rule under default ask', '{"v":1,"default":"ask","rules":[{"id":"r","max_amount":"20.00","decision":"allow"}]}'],
    ['a deny cap under default allow', '{"v":1,"default":"allow","rules":[{"id":"r","min_amount":"20.01","decision":"deny"}]}'],
    ['an ask rule under default deny', '{"v":1,"default":"deny","rules":[{"id":"r","decision":"ask"}]}'],
    ['an ask rule beside an allow rule under default ask', '{"v":1,"default":"ask","rules":[{"id":"a","merchants":["a.example"],"decision":"allow"},{"id":"r","min_amount":"5.00","decision":"ask"}]}'],
  ];
  for (const [name, text] of cases) {
    const policy = parsePolicyText(text);
    assert.deepEqual(policyWarnings(policy).filter((w) => w.id === 'r'), [], name);
  }
});

/** Every small policy over two decisions, two amounts and two merchants, with its rules in file order. */
function* smallPolicies(): Generator<Policy> {
  const decisions: PolicyDecision[] = ['allow', 'ask', 'deny'];
  const shapes = ['', '"merchants":["a.example"],', '"max_amount":"20.00",', '"min_amount":"20.00",'];
  for (const fallback of decisions) {
    for (const first of decisions) {
      for (const second of decisions) {
        for (const shapeA of shapes) {
          for (const shapeB of shapes) {
            yield parsePolicyText(
              `{"v":1,"default":"${fallback}","rules":[{"id":"a",${shapeA}"decision":"${first}"},{"id":"b",${shapeB}"decision":"${second}"}]}`,
            );
          }
        }
      }
    }
  }
}

test('a rule warned about decides nothing: removing it leaves every decision as it was (every small policy)', () => {
  const requests = ['a.example', 'b.example'].flatMap((merchant) => [500, 2_000, 3_000].map((amountMinor) => request({ merchant, amountMinor })));
  let warned = 0;
  for (const policy of smallPolicies()) {
    const flagged = new Set(policyWarnings(policy).map((w) => w.id));
    for (const rule of policy.rules) {
      const without = { ...policy, rules: policy.rules.filter((r) => r !== rule) };
      const changes = requests.some((r) => evaluatePolicy(policy, r, NO_HISTORY).decision !== evaluatePolicy(without, r, NO_HISTORY).decision);
      if (flagged.has(rule.id)) {
        warned++;
        assert.equal(changes, false, `rule ${rule.id} was warned about but changes a decision in ${JSON.stringify(policy.rules)} default ${policy.default}`);
      }
    }
  }
  assert.ok(warned > 100, `only ${warned} rules were warned about; the generator lost its cases`);
});

/** The ```json blocks of a document that are whole policy files. */
function policyBlocks(path: string): string[] {
  const text = readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
  return [...text.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => m[1] ?? '').filter((block) => /"v"\s*:\s*1/.test(block) && /"rules"/.test(block));
}

test('every policy the README, docs/policy.md and `latch policy init` show changes decisions with every rule', () => {
  const examples = [
    ...['README.md', 'docs/policy.md'].flatMap((path) => policyBlocks(path).map((text, index) => ({ name: `${path} block ${index}`, text }))),
    { name: 'the starter policy', text: STARTER_POLICY_TEXT },
  ];
  assert.ok(examples.length >= 3, `found only ${examples.length} policy examples`);
  for (const { name, text } of examples) assert.deepEqual(policyWarnings(parsePolicyText(text)), [], name);
});

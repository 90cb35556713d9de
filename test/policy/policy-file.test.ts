import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import {
  DEFAULT_POLICY,
  DEFAULT_POLICY_TEXT,
  POLICY_FILE_BYTES_MAX,
  RULES_MAX,
  parsePolicyBytes,
  parsePolicyText,
} from '../../src/policy/policy-file.js';
import { PolicyInvalidError } from '../../src/policy/policy-invalid-error.js';
import { policyToJson } from '../../src/policy-text/policy-json-writer.js';
import { CURRENCY_DECIMALS } from '../../src/money/amount.js';
import { SPEC_POLICY } from './policy-fixtures.js';

const SPEC_EXAMPLE = SPEC_POLICY;

test("the spec's example parses into minor units and windows", () => {
  const policy = parsePolicyText(SPEC_EXAMPLE);
  assert.equal(policy.source, 'file');
  assert.equal(policy.default, 'allow');
  assert.equal(policy.newMerchant, 'ask');
  assert.equal(policy.approvalTtlSeconds, 900);
  assert.deepEqual(policy.rules.map((r) => r.id), ['groceries', 'large', 'no-subscriptions']);
  assert.equal(policy.rules[0]?.maxAmountMinor, 15_000);
  assert.deepEqual(policy.rules[0]?.merchants, ['grocer.example', '*.grocer.example']);
  assert.equal(policy.rules[1]?.minAmountMinor, 5_000);
  assert.deepEqual(policy.rules[2]?.kinds, ['recurring']);
  assert.deepEqual(
    policy.budgets.map((b) => [b.id, b.windowSeconds, b.limitMinor, b.over]),
    [
      ['shopper-daily', 86_400, 20_000, 'deny'],
      ['everyone-monthly', 2_592_000, 100_000, 'ask'],
    ],
  );
  assert.deepEqual(policy.velocity[0], { id: 'burst', agents: ['*'], perSeconds: 3600, maxCount: 10, over: 'deny' });
});

test('sha256 is the hash of the exact file bytes', () => {
  const bytes = new TextEncoder().encode(SPEC_EXAMPLE);
  const expected = createHash('sha256').update(bytes).digest('hex');
  assert.equal(parsePolicyBytes(bytes).sha256, expected);
  assert.equal(parsePolicyText(SPEC_EXAMPLE).sha256, expected);
  // One more space is a different file.
  assert.notEqual(parsePolicyText(`${SPEC_EXAMPLE} `).sha256, expected);
});

test('defaults: allow, allow, 900 seconds, empty lists', () => {
  const policy = parsePolicyText('{"v":1}');
  assert.equal(policy.default, 'allow');
  assert.equal(policy.newMerchant, 'allow');
  assert.equal(policy.approvalTtlSeconds, 900);
  assert.deepEqual([policy.rules, policy.budgets, policy.velocity], [[], [], []]);
});

test('the default policy allows everything and has a stable hash', () => {
  assert.equal(DEFAULT_POLICY.source, 'default');
  assert.equal(DEFAULT_POLICY.default, 'allow');
  assert.equal(DEFAULT_POLICY.newMerchant, 'allow');
  assert.deepEqual([DEFAULT_POLICY.rules, DEFAULT_POLICY.budgets, DEFAULT_POLICY.velocity], [[], [], []]);
  assert.equal(DEFAULT_POLICY.sha256, createHash('sha256').update(DEFAULT_POLICY_TEXT).digest('hex'));
});

test('merchants are normalized like requests: case, trailing dot, IDNA', () => {
  const policy = parsePolicyText(
    '{"v":1,"rules":[{"id":"m","merchants":["Grocer.Example.","*.SHOP.example","grосer.example"],"decision":"deny"}]}',
  );
  assert.deepEqual(policy.rules[0]?.merchants, ['grocer.example', '*.shop.example', 'xn--grer-65ds.example']);
});

test('amounts follow the currency decimals of src/money (every supported one has 2)', () => {
  assert.ok(Object.values(CURRENCY_DECIMALS).every((d) => d === 2));
  const policy = parsePolicyText('{"v":1,"rules":[{"id":"z","max_amount":"0","kinds":["merchant_verification"],"decision":"allow"}]}');
  assert.equal(policy.rules[0]?.maxAmountMinor, 0);
});

test('policyToJson writes the file shape back with decimal strings', () => {
  const json = policyToJson(parsePolicyText(SPEC_EXAMPLE));
  assert.deepEqual(json, JSON.parse(SPEC_EXAMPLE));
});

function rulesFile(rule: string): string {
  return `{"v":1,"rules":[{"id":"ok","decision":"allow"},${rule}]}`;
}
function budgetFile(budget: string): string {
  return `{"v":1,"budgets":[${budget}]}`;
}
function velocityFile(velocity: string): string {
  return `{"v":1,"velocity":[${velocity}]}`;
}

const manyRules = `{"v":1,"rules":[${Array.from({ length: RULES_MAX + 1 }, (_, i) => `{"id":"r${i}","decision":"allow"}`).join(',')}]}`;
const oversize = `{"v":1,"rules":[{"id":"a","decision":"allow"}]}${' '.repeat(POLICY_FILE_BYTES_MAX)}`;

/** [name, file text, the field the error must name]. */
const invalid: Array<[string, string, string]> = [
  ['bad JSON', '{"v":1,', '$'],
  ['trailing comma', '{"v":1,}', '$'],
  ['comment', '{"v":1 /* c */}', '$'],
  ['duplicate key', '{"v":1,"v":1}', '$'],
  ['not an object', '[]', '$'],
  ['empty file', '', '$'],
  ['oversize file', oversize, '$'],
  ['unknown top-level field', '{"v":1,"defaults":"allow"}', 'defaults'],
  ['unknown field with an odd name', '{"v":1,"a b":1}', '<unknown>'],
  ['v missing', '{"default":"allow"}', 'v'],
  ['v is 2', '{"v":2}', 'v'],
  ['v is a string', '{"v":"1"}', 'v'],
  ['v is 1.0', '{"v":1.0}', 'v'],
  ['bad default', '{"v":1,"default":"maybe"}', 'default'],
  ['default upper case', '{"v":1,"default":"ALLOW"}', 'default'],
  ['bad new_merchant', '{"v":1,"new_merchant":true}', 'new_merchant'],
  ['ttl too short', '{"v":1,"approval_ttl_seconds":59}', 'approval_ttl_seconds'],
  ['ttl too long', '{"v":1,"approval_ttl_seconds":86401}', 'approval_ttl_seconds'],
  ['ttl fraction', '{"v":1,"approval_ttl_seconds":900.5}', 'approval_ttl_seconds'],
  ['ttl exponent', '{"v":1,"approval_ttl_seconds":9e2}', 'approval_ttl_seconds'],
  ['ttl negative', '{"v":1,"approval_ttl_seconds":-900}', 'approval_ttl_seconds'],
  ['rules not an array', '{"v":1,"rules":{}}', 'rules'],
  ['too many rules', manyRules, '$'],
  ['rule not an object', rulesFile('"r"'), 'rules[1]'],
  ['unknown rule field', rulesFile('{"id":"r","max_ammount":"1.00","decision":"allow"}'), 'rules[1].max_ammount'],
  ['rule id missing', rulesFile('{"decision":"allow"}'), 'rules[1].id'],
  ['rule decision missing', rulesFile('{"id":"r"}'), 'rules[1].decision'],
  ['bad decision', rulesFile('{"id":"r","decision":"block"}'), 'rules[1].decision'],
  ['duplicate rule id', rulesFile('{"id":"ok","decision":"deny"}'), 'rules[1].id'],
  ['reserved id default', rulesFile('{"id":"default","decision":"deny"}'), 'rules[1].id'],
  ['reserved id new_merchant', rulesFile('{"id":"new_merchant","decision":"deny"}'), 'rules[1].id'],
  ['upper-case id', rulesFile('{"id":"Big","decision":"deny"}'), 'rules[1].id'],
  ['id too long', rulesFile(`{"id":"${'a'.repeat(65)}","decision":"deny"}`), 'rules[1].id'],
  ['id a number', rulesFile('{"id":7,"decision":"deny"}'), 'rules[1].id'],
  ['amount 1.001', rulesFile('{"id":"r","max_amount":"1.001","decision":"deny"}'), 'rules[1].max_amount'],
  ['amount -1', rulesFile('{"id":"r","min_amount":"-1","decision":"deny"}'), 'rules[1].min_amount'],
  ['amount 1e3', rulesFile('{"id":"r","min_amount":"1e3","decision":"deny"}'), 'rules[1].min_amount'],
  ['amount as a number', rulesFile('{"id":"r","max_amount":12.5,"decision":"deny"}'), 'rules[1].max_amount'],
  ['amount above 10,000.00', rulesFile('{"id":"r","max_amount":"10000.01","decision":"deny"}'), 'rules[1].max_amount'],
  ['amount with spaces', rulesFile('{"id":"r","max_amount":" 1.00","decision":"deny"}'), 'rules[1].max_amount'],
  ['min above max', rulesFile('{"id":"r","min_amount":"5.00","max_amount":"4.99","decision":"deny"}'), 'rules[1].min_amount'],
  ['agents not a list', rulesFile('{"id":"r","agents":"shopper","decision":"deny"}'), 'rules[1].agents'],
  ['agents empty', rulesFile('{"id":"r","agents":[],"decision":"deny"}'), 'rules[1].agents'],
  ['agent upper case', rulesFile('{"id":"r","agents":["Shopper"],"decision":"deny"}'), 'rules[1].agents[0]'],
  ['agent too long', rulesFile(`{"id":"r","agents":["${'a'.repeat(33)}"],"decision":"deny"}`), 'rules[1].agents[0]'],
  ['agent leading hyphen', rulesFile('{"id":"r","agents":["-x"],"decision":"deny"}'), 'rules[1].agents[0]'],
  ['agent wildcard prefix', rulesFile('{"id":"r","agents":["shop*"],"decision":"deny"}'), 'rules[1].agents[0]'],
  ['agent listed twice', rulesFile('{"id":"r","agents":["a","b","a"],"decision":"deny"}'), 'rules[1].agents[2]'],
  ['agent nested list', rulesFile('{"id":"r","agents":[["a"]],"decision":"deny"}'), 'rules[1].agents[0]'],
  ['bad card id', rulesFile('{"id":"r","cards":["pw_abc"],"decision":"deny"}'), 'rules[1].cards[0]'],
  ['card id upper case', rulesFile('{"id":"r","cards":["card_ABC"],"decision":"deny"}'), 'rules[1].cards[0]'],
  ['merchant with scheme', rulesFile('{"id":"r","merchants":["https://grocer.example"],"decision":"deny"}'), 'rules[1].merchants[0]'],
  ['merchant with path', rulesFile('{"id":"r","merchants":["grocer.example/x"],"decision":"deny"}'), 'rules[1].merchants[0]'],
  ['merchant single label', rulesFile('{"id":"r","merchants":["localhost"],"decision":"deny"}'), 'rules[1].merchants[0]'],
  ['wildcard on a TLD', rulesFile('{"id":"r","merchants":["*.com"],"decision":"deny"}'), 'rules[1].merchants[0]'],
  ['bare wildcard', rulesFile('{"id":"r","merchants":["*"],"decision":"deny"}'), 'rules[1].merchants[0]'],
  ['inner wildcard', rulesFile('{"id":"r","merchants":["shop.*.example"],"decision":"deny"}'), 'rules[1].merchants[0]'],
  ['double wildcard', rulesFile('{"id":"r","merchants":["*.*.grocer.example"],"decision":"deny"}'), 'rules[1].merchants[0]'],
  ['merchant duplicate after normalizing', rulesFile('{"id":"r","merchants":["a.example","A.EXAMPLE."],"decision":"deny"}'), 'rules[1].merchants[1]'],
  ['merchant IP', rulesFile('{"id":"r","merchants":["10.0.0.1"],"decision":"deny"}'), 'rules[1].merchants[0]'],
  ['bad kind', rulesFile('{"id":"r","kinds":["subscription"],"decision":"deny"}'), 'rules[1].kinds[0]'],
  ['currency lower case', rulesFile('{"id":"r","currencies":["usd"],"decision":"deny"}'), 'rules[1].currencies[0]'],
  ['currency four letters', rulesFile('{"id":"r","currencies":["USDT"],"decision":"deny"}'), 'rules[1].currencies[0]'],
  ['budget per missing', budgetFile('{"id":"b","limit":"1.00","over":"deny"}'), 'budgets[0].per'],
  ['budget per hour', budgetFile('{"id":"b","per":"hour","limit":"1.00","over":"deny"}'), 'budgets[0].per'],
  ['budget limit zero', budgetFile('{"id":"b","per":"day","limit":"0","over":"deny"}'), 'budgets[0].limit'],
  ['budget limit a number', budgetFile('{"id":"b","per":"day","limit":200,"over":"deny"}'), 'budgets[0].limit'],
  ['budget limit too large', budgetFile('{"id":"b","per":"day","limit":"100000000.01","over":"deny"}'), 'budgets[0].limit'],
  ['budget over allow', budgetFile('{"id":"b","per":"day","limit":"1.00","over":"allow"}'), 'budgets[0].over'],
  ['budget kinds unknown', budgetFile('{"id":"b","per":"day","limit":"1.00","over":"deny","kinds":["recurring"]}'), 'budgets[0].kinds'],
  ['budget id collides with a rule', '{"v":1,"rules":[{"id":"x","decision":"allow"}],"budgets":[{"id":"x","per":"day","limit":"1.00","over":"deny"}]}', 'budgets[0].id'],
  ['velocity per_seconds zero', velocityFile('{"id":"v","per_seconds":0,"max_count":1,"over":"deny"}'), 'velocity[0].per_seconds'],
  ['velocity per_seconds above 30 days', velocityFile('{"id":"v","per_seconds":2592001,"max_count":1,"over":"deny"}'), 'velocity[0].per_seconds'],
  ['velocity max_count zero', velocityFile('{"id":"v","per_seconds":60,"max_count":0,"over":"deny"}'), 'velocity[0].max_count'],
  ['velocity max_count too large', velocityFile('{"id":"v","per_seconds":60,"max_count":1000001,"over":"deny"}'), 'velocity[0].max_count'],
  ['velocity max_count string', velocityFile('{"id":"v","per_seconds":60,"max_count":"5","over":"deny"}'), 'velocity[0].max_count'],
  ['velocity unknown field', velocityFile('{"id":"v","per_seconds":60,"max_count":5,"over":"deny","per":"day"}'), 'velocity[0].per'],
];

for (const [name, text, field] of invalid) {
  test(`refuses ${name}, naming ${field}`, () => {
    assert.throws(
      () => parsePolicyText(text),
      (error: unknown) => {
        assert.ok(error instanceof PolicyInvalidError);
        assert.equal(error.code, 'policy_invalid');
        assert.equal(error.field, field);
        assert.ok(error.message.startsWith(`policy.json ${field}: `), error.message);
        assert.ok(error.message.length < 300, 'messages stay short');
        return true;
      },
    );
  });
}

test('a refused value is never echoed in the message', () => {
  const secretish = `x${'Z'.repeat(200)}.example`;
  for (const text of [
    rulesFile(`{"id":"r","merchants":["https://${secretish}"],"decision":"deny"}`),
    rulesFile(`{"id":"r","max_amount":"${'9'.repeat(30)}","decision":"deny"}`),
    rulesFile(`{"id":"r","agents":["${secretish}"],"decision":"deny"}`),
    `{"v":1,"${'Q'.repeat(100)}":1}`,
  ]) {
    assert.throws(() => parsePolicyText(text), (error: unknown) => error instanceof PolicyInvalidError && !/ZZZZ|9999|QQQQ/.test(error.message));
  }
});

test('non-UTF-8 bytes are refused as the file', () => {
  assert.throws(() => parsePolicyBytes(new Uint8Array([0x7b, 0xff, 0x7d])), (e: unknown) => e instanceof PolicyInvalidError && e.field === '$');
});

test('exactly RULES_MAX rules and a file of exactly the byte limit are accepted', () => {
  const rules = Array.from({ length: RULES_MAX }, (_, i) => `{"id":"r${i}","decision":"allow"}`).join(',');
  const text = `{"v":1,"rules":[${rules}]}`;
  assert.equal(parsePolicyText(text).rules.length, RULES_MAX);
  const padded = `{"v":1}${' '.repeat(POLICY_FILE_BYTES_MAX - 7)}`;
  assert.equal(new TextEncoder().encode(padded).length, POLICY_FILE_BYTES_MAX);
  assert.equal(parsePolicyText(padded).v, 1);
});

test('a rule may name an agent that does not exist yet, "owner" and "*"', () => {
  const policy = parsePolicyText(rulesFile('{"id":"r","agents":["future-bot","owner","*"],"decision":"ask"}'));
  assert.deepEqual(policy.rules[1]?.agents, ['future-bot', 'owner', '*']);
});

test('a syntax error in policy.json names its line and column, not a byte offset', () => {
  const text = '{\n  "v": 1,\n  "default": "allow",\n}\n';
  assert.throws(
    () => parsePolicyText(text),
    (error: unknown) => error instanceof PolicyInvalidError && error.field === '$' && /line 4, column 1\.$/.test(error.message) && !/offset/.test(error.message),
  );
  assert.throws(() => parsePolicyText('{"v": 1, "rules": [\n  {"id": "a" "decision": "deny"}\n]}'), /line 2, column 15\./);
});

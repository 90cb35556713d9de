/**
 * GET /policy and POST /policy/check through the real daemon and sandbox: the owner reads the
 * effective policy (amounts as decimal strings, its SHA-256 and source), an agent cannot; a check
 * answers the decision, the rule, the reasons and the budgets, for the caller or (owner only) for
 * a named agent, and signs, reserves and records nothing.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { addAgent } from '../../src/datadir/agents.js';
import { assertError } from '../support/e2e-assert.js';
import { JsonClient, startStack, type Stack } from '../support/stack.js';

let stack: Stack;
let shopper: JsonClient;
before(async () => {
  stack = await startStack();
  addAgent(stack.home, 'shopper');
  shopper = stack.agent('shopper');
});
after(() => stack.close());

/** The worked example of docs/policy.md, with a coffee budget the owner shares. */
const POLICY_TEXT = JSON.stringify({
  v: 1,
  default: 'allow',
  rules: [
    { id: 'groceries', agents: ['shopper'], merchants: ['grocer.example', '*.grocer.example'], max_amount: '150.00', decision: 'allow' },
    { id: 'large', min_amount: '50.00', decision: 'ask' },
    { id: 'no-subscriptions', agents: ['shopper'], kinds: ['recurring'], decision: 'deny' },
  ],
  budgets: [
    { id: 'shopper-daily', agents: ['shopper'], per: 'day', limit: '200.00', over: 'deny' },
    { id: 'coffee', merchants: ['coffee.example.com'], per: 'day', limit: '5.00', over: 'deny' },
  ],
});

let writes = 0;
function writePolicy(text: string): void {
  const file = path.join(stack.home, 'policy.json');
  writeFileSync(`${file}.tmp${writes}`, text, { mode: 0o600 });
  renameSync(`${file}.tmp${writes++}`, file);
}

const card = () => stack.cards[0].card_id;
const registered = () => stack.sandbox.state().authorizations.size;
const journalBytes = () => readFileSync(path.join(stack.home, 'state.journal')).length;

describe('GET /policy', () => {
  test('without a file: the default policy, source default', async () => {
    rmSync(path.join(stack.home, 'policy.json'), { force: true });
    const answer = await stack.a.get('/policy');
    assert.equal(answer.status, 200, answer.text);
    assert.equal(answer.body.source, 'default');
    assert.equal(answer.body.policy.default, 'allow');
    assert.deepEqual(answer.body.policy.rules, []);
    assert.match(answer.body.sha256, /^[0-9a-f]{64}$/);
  });

  test('with a file: the effective policy with amounts as decimal strings, the SHA-256 of the bytes, source file', async () => {
    writePolicy(POLICY_TEXT);
    const answer = await stack.a.get('/policy');
    assert.equal(answer.status, 200, answer.text);
    assert.equal(answer.body.source, 'file');
    assert.equal(answer.body.sha256, createHash('sha256').update(POLICY_TEXT).digest('hex'));
    assert.equal(answer.body.policy.rules[0].max_amount, '150.00');
    assert.equal(answer.body.policy.budgets[0].limit, '200.00');
    assert.equal(answer.body.policy.new_merchant, 'allow', 'defaults are filled in');
    assert.equal(answer.body.policy.approval_ttl_seconds, 900);
  });

  test('an agent gets 403 agent_not_permitted', async () => {
    assertError(await shopper.get('/policy'), 403, 'agent_not_permitted');
  });

  test('an invalid file: 503 policy_invalid naming the field', async () => {
    writePolicy(JSON.stringify({ v: 1, rules: [{ id: 'x', max_amount: 5, decision: 'allow' }] }));
    assertError(await stack.a.get('/policy'), 503, 'policy_invalid', 'rules[0].max_amount');
    assertError(await stack.a.post('/policy/check', { card_id: card(), amount: '1.00', merchant_name: 'shop.example.com' }), 503, 'policy_invalid', 'rules[0].max_amount');
    writePolicy(POLICY_TEXT);
  });
});

describe('POST /policy/check', () => {
  const cases: Array<{ name: string; client: () => JsonClient; body: Record<string, unknown>; decision: string; rule: string; reason: RegExp }> = [
    { name: 'shopper, 12.00 at grocer.example', client: () => shopper, body: { amount: '12.00', merchant_name: 'grocer.example' }, decision: 'allow', rule: 'groceries', reason: /rule groceries \(allow\)/ },
    { name: 'shopper, 60.00 at grocer.example', client: () => shopper, body: { amount: '60.00', merchant_name: 'grocer.example' }, decision: 'ask', rule: 'large', reason: /rule large \(ask\)/ },
    { name: 'shopper, recurring', client: () => shopper, body: { amount: '5.00', merchant_name: 'grocer.example', kind: 'recurring', interval: 'month' }, decision: 'deny', rule: 'no-subscriptions', reason: /no-subscriptions/ },
    { name: 'owner, recurring (the rule names shopper only)', client: () => stack.a, body: { amount: '5.00', merchant_name: 'grocer.example', kind: 'recurring', interval: 'month' }, decision: 'allow', rule: 'default', reason: /no rule matched/ },
    { name: 'owner for shopper, recurring', client: () => stack.a, body: { amount: '5.00', merchant_name: 'grocer.example', kind: 'recurring', interval: 'month', agent: 'shopper' }, decision: 'deny', rule: 'no-subscriptions', reason: /caller shopper/ },
    { name: 'shopper, merchant verification', client: () => shopper, body: { merchant_name: 'grocer.example', kind: 'merchant_verification' }, decision: 'allow', rule: 'groceries', reason: /groceries/ },
    { name: 'shopper, a 149.00 ceiling', client: () => shopper, body: { amount: '149.00', merchant_name: 'grocer.example', authorization_type: 'ceiling' }, decision: 'ask', rule: 'large', reason: /large/ },
  ];
  for (const { name, client, body, decision, rule, reason } of cases) {
    test(`${name}: ${decision} by ${rule}`, async () => {
      writePolicy(POLICY_TEXT);
      const answer = await client().post('/policy/check', { card_id: card(), ...body });
      assert.equal(answer.status, 200, answer.text);
      assert.deepEqual(Object.keys(answer.body).sort(), ['budgets', 'decision', 'reasons', 'rule']);
      assert.equal(answer.body.decision, decision);
      assert.equal(answer.body.rule, rule);
      assert.ok(answer.body.reasons.some((text: string) => reason.test(text)), answer.text);
    });
  }

  test('budgets: limit, exposure and remaining as decimal strings; a check reserves nothing and signs nothing', async () => {
    writePolicy(POLICY_TEXT);
    const check = () => stack.a.post('/policy/check', { card_id: card(), amount: '2.00', merchant_name: 'coffee.example.com' });
    const before = { registered: registered(), journal: journalBytes() };
    for (let i = 0; i < 5; i++) assert.equal((await check()).body.decision, 'allow', 'checks do not add up');
    assert.equal(registered(), before.registered, 'nothing reached the cloud');
    assert.equal(journalBytes(), before.journal, 'nothing was recorded');
    assert.deepEqual((await check()).body.budgets, [{ id: 'coffee', limit: '5.00', exposure: '0.00', remaining: '5.00' }]);

    assert.equal((await stack.a.post('/authorize', { card_id: card(), amount: '4.00', merchant_name: 'coffee.example.com' })).status, 200);
    const after = await check();
    assert.equal(after.body.decision, 'deny');
    assert.equal(after.body.rule, 'coffee');
    assert.deepEqual(after.body.budgets, [{ id: 'coffee', limit: '5.00', exposure: '4.00', remaining: '1.00' }]);
    assert.ok(after.body.reasons.some((text: string) => /budget coffee \(deny\): 4\.00 of 5\.00 used/.test(text)), after.text);
  });

  test('an agent naming any agent, itself included, is 400 invalid_request param agent', async () => {
    for (const agent of ['shopper', 'owner', 'travel']) {
      assertError(await shopper.post('/policy/check', { card_id: card(), amount: '1.00', merchant_name: 'grocer.example', agent }), 400, 'invalid_request', 'agent');
    }
  });

  const invalid: Array<{ body: unknown; param: string }> = [
    { body: { card_id: 'card_x', amount: '1.00', merchant_name: 'grocer.example', kind: 'weekly' }, param: 'kind' },
    { body: { card_id: 'card_x', amount: '1.00', merchant_name: 'grocer.example', agent: 'Not A Name' }, param: 'agent' },
    { body: { card_id: 'card_x', amount: '1.00', merchant_name: 'grocer.example', agent: 7 }, param: 'agent' },
    { body: { card_id: 'card_x', merchant_name: 'grocer.example' }, param: 'amount' },
    { body: { card_id: 'card_x', amount: '1.001', merchant_name: 'grocer.example' }, param: 'amount' },
    { body: { card_id: 'card_x', amount: '1.00', merchant_name: 'grocer.example', kind: 'recurring' }, param: 'interval' },
    { body: { card_id: 'card_x', amount: '2.00', merchant_name: 'grocer.example', kind: 'merchant_verification' }, param: 'amount' },
    { body: { card_id: 'card_x', merchant_name: 'grocer.example', kind: 'merchant_verification', authorization_type: 'exact' }, param: 'authorization_type' },
    { body: { card_id: 'card_x', amount: '1.00', merchant_name: 'grocer.example', surprise: 1 }, param: 'surprise' },
    { body: { card_id: 'card_x', amount: '1.00', merchant_name: 'grocer.example', kind: 'recurring', interval: 'month', starts_at: '2001-01-01T00:00:00Z' }, param: 'starts_at' },
    { body: [1, 2], param: 'body' },
  ];
  for (const { body, param } of invalid) {
    test(`refused: 400 invalid_request param ${param} (${JSON.stringify(body)})`, async () => {
      assertError(await stack.a.post('/policy/check', body), 400, 'invalid_request', param);
    });
  }
});

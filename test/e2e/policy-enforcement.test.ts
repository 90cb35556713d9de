/**
 * The spending policy through the real daemon and sandbox: a denial on A and B is 403
 * policy_denied with the rule and reaches no cloud; 50 concurrent requests never overspend a
 * budget; an invalid policy.json fails closed with 503 policy_invalid naming the field, and a
 * fix (or removal) applies without a restart; a restart rebuilds the budget from state.journal.
 */
import assert from 'node:assert/strict';
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { after, before, test } from 'node:test';
import { createDaemon } from '../../src/daemon/create-daemon.js';
import { readToken } from '../../src/datadir/token.js';
import { assertError } from '../support/e2e-assert.js';
import { JsonClient, startStack, type Stack } from '../support/stack.js';

let stack: Stack;
before(async () => {
  stack = await startStack();
});
after(() => stack.close());

const POLICY = {
  v: 1,
  default: 'allow',
  rules: [{ id: 'no-casino', merchants: ['casino.example.com'], decision: 'deny' }],
  budgets: [{ id: 'coffee-daily', merchants: ['coffee.example.com'], per: 'day', limit: '5.00', over: 'deny' }],
};

let writes = 0;
/** writePolicy replaces policy.json atomically at 0600, as an editor saving it would. */
function writePolicy(text: string): void {
  const file = path.join(stack.home, 'policy.json');
  const temporary = `${file}.tmp${writes++}`;
  writeFileSync(temporary, text, { mode: 0o600 });
  renameSync(temporary, file);
}

const registered = () => stack.sandbox.state().authorizations.size;
const card = () => stack.cards[0].card_id;

test('without policy.json every request is allowed, as before', async () => {
  const answer = await stack.a.post('/authorize', { card_id: card(), amount: '1.00', merchant_name: 'casino.example.com' });
  assert.equal(answer.status, 200, answer.text);
});

test('deny: 403 policy_denied with the rule on A and B, nothing registered', async () => {
  writePolicy(JSON.stringify(POLICY));
  const before = registered();
  const a = await stack.a.post('/authorize', { card_id: card(), amount: '1.00', merchant_name: 'casino.example.com' });
  assertError(a, 403, 'policy_denied');
  assert.equal(a.body.error.rule, 'no-casino');
  const b = await stack.b.post('/authorize', { card_id: card(), amount: 1, merchant: 'casino.example.com' });
  assertError(b, 403, 'policy_denied');
  assert.equal(b.body.error.rule, 'no-casino');
  for (const [route, body] of [
    ['/merchant-bind', { card_id: card(), merchant_name: 'casino.example.com' }],
    ['/recurring', { card_id: card(), amount: '1.00', merchant_name: 'casino.example.com', interval: 'month' }],
  ] as const) {
    const answer = await stack.a.post(route, body);
    assertError(answer, 403, 'policy_denied');
    assert.equal(answer.body.error.rule, 'no-casino', route);
  }
  assert.equal(registered(), before, 'nothing reached the cloud');
  assert.match(stack.logs(), /policy_denied.*no-casino/);
  const allowed = await stack.a.post('/authorize', { card_id: card(), amount: '1.00', merchant_name: 'shop.example.com' });
  assert.equal(allowed.status, 200, allowed.text);
});

test('50 concurrent requests against a 5.00 budget: exactly 20 of 0.25 pass, never more', async () => {
  writePolicy(JSON.stringify(POLICY));
  const before = registered();
  const answers = await Promise.all(
    Array.from({ length: 50 }, () => stack.a.post('/authorize', { card_id: card(), amount: '0.25', merchant_name: 'coffee.example.com' })),
  );
  const created = answers.filter((answer) => answer.status === 200).length;
  assert.equal(created, 20);
  for (const answer of answers.filter((a) => a.status !== 200)) {
    assertError(answer, 403, 'policy_denied');
    assert.equal(answer.body.error.rule, 'coffee-daily');
  }
  assert.equal(registered() - before, 20);
});

test('an invalid policy.json fails closed naming the field; reads work; the fix applies without a restart', async () => {
  const cases: Array<{ text: string; param: string }> = [
    { text: '{"v":1,', param: '$' },
    { text: JSON.stringify({ ...POLICY, v: 2 }), param: 'v' },
    { text: JSON.stringify({ ...POLICY, surprise: true }), param: 'surprise' },
    { text: JSON.stringify({ ...POLICY, rules: [{ id: 'x', decision: 'maybe' }] }), param: 'rules[0].decision' },
    { text: JSON.stringify({ ...POLICY, budgets: [{ id: 'b', per: 'day', limit: '1.001', over: 'deny' }] }), param: 'budgets[0].limit' },
  ];
  for (const { text, param } of cases) {
    writePolicy(text);
    const before = registered();
    const a = await stack.a.post('/authorize', { card_id: card(), amount: '1.00', merchant_name: 'shop.example.com' });
    assertError(a, 503, 'policy_invalid', param);
    assert.ok(a.body.error.message.includes(param), a.text);
    const b = await stack.b.post('/authorize', { card_id: card(), amount: 1, merchant: 'shop.example.com' });
    assertError(b, 503, 'policy_invalid', param);
    assert.equal(registered(), before);
    assert.equal((await stack.a.get('/cards')).status, 200, 'reads keep working');
  }
  writePolicy(JSON.stringify(POLICY));
  assert.equal((await stack.a.post('/authorize', { card_id: card(), amount: '1.00', merchant_name: 'shop.example.com' })).status, 200);
  writePolicy(JSON.stringify({ ...POLICY, rules: [{ id: 'shop-off', merchants: ['shop.example.com'], decision: 'deny' }] }));
  assert.equal((await stack.a.post('/authorize', { card_id: card(), amount: '1.00', merchant_name: 'shop.example.com' })).body.error.rule, 'shop-off', 'hot reload');
  rmSync(path.join(stack.home, 'policy.json'));
  assert.equal((await stack.a.post('/authorize', { card_id: card(), amount: '1.00', merchant_name: 'casino.example.com' })).status, 200, 'absent again: allow everything');
});

// Last: it closes the stack's daemon.
test('after a restart the budget is rebuilt from state.journal: still exhausted', async () => {
  writePolicy(JSON.stringify(POLICY));
  await stack.daemon.close({ deadlineMs: 1_000 });
  const daemon = createDaemon({ home: stack.home, portA: 0, portB: 0, env: { LATCH_HOME: stack.home }, logStream: new PassThrough().resume() });
  const ports = await daemon.listen();
  try {
    const client = new JsonClient(`http://127.0.0.1:${ports.portA}`, () => readToken(stack.home));
    const answer = await client.post('/authorize', { card_id: card(), amount: '0.25', merchant_name: 'coffee.example.com' });
    assertError(answer, 403, 'policy_denied');
    assert.equal(answer.body.error.rule, 'coffee-daily');
  } finally {
    await daemon.close({ deadlineMs: 1_000 });
  }
});

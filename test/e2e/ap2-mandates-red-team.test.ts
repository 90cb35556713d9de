/**
 * Issue 43's AP2 reproductions on the real daemon and sandbox (shared/spec/ap2-mandates.md §6): a
 * rule gating one-time windows gates the mandate that registers one; a merchant id naming another
 * merchant is refused; a denied mandate makes no signed cloud call; a window the cloud refuses
 * leaves no signed mandate and no `ap2_mandate_signed` line; a recurring mandate registers a
 * recurring ceiling window held to its budget and names its recurrence and budget as AP2 does.
 */
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { addAgent } from '../../src/datadir/agents.js';
import { runLatch } from '../support/stack.js';
import { ap2World } from '../support/ap2-world.js';

const POLICY = {
  v: 1,
  default: 'allow',
  rules: [
    { id: 'pay-asks', kinds: ['one_time', 'recurring'], min_amount: '30.00', decision: 'ask' },
    { id: 'no-casino', merchants: ['casino.example'], decision: 'deny' },
  ],
};

const world = ap2World(POLICY, 'ap2-red');
const { body, post, auditLines, settledAuditLines, auditLinesAfter } = world;
const delegateOf = async (token: string): Promise<Record<string, any>> => (await world.verified(token)).delegate;

describe('rules that gate a kind gate what a mandate registers', () => {
  test('/authorize for 40.00 asks, and so does /ap2/mandates for the same card, merchant and amount: no window is registered', async () => {
    const authorize = await world.shopper.post('/authorize', { card_id: world.stack.cards[0].card_id, merchant_name: 'shop.example', amount: '40.00', currency: 'USD' }, { 'idempotency-key': world.key() });
    assert.equal(authorize.status, 202, authorize.text);
    const before = (await settledAuditLines()).length;
    const mandate = await post(body({ amount_max: '40.00' }));
    assert.equal(mandate.status, 202, mandate.text);
    assert.equal(mandate.body.approval?.status ?? mandate.body.status, 'pending_approval', mandate.text);
    assert.deepEqual(auditLines().slice(before).map((line) => line['operation']), ['approval_requested'], 'nothing is signed or sent for an ask');
  });

  test('POST /policy/check with kind ap2_mandate answers what /ap2/mandates would get', async () => {
    const asks = await world.shopper.post('/policy/check', { kind: 'ap2_mandate', ...body({ amount_max: '40.00' }) });
    assert.equal(asks.status, 200, asks.text);
    assert.deepEqual([asks.body.decision, asks.body.rule], ['ask', 'pay-asks']);
    const denies = await world.shopper.post('/policy/check', { kind: 'ap2_mandate', ...body({ merchant: { name: 'Casino', website: 'https://casino.example' } }) });
    assert.deepEqual([denies.body.decision, denies.body.rule], ['deny', 'no-casino']);
  });

  test('a recurring mandate is judged by a rule naming recurring', async () => {
    const mandate = await post(body({ amount_max: '40.00', recurrence: { frequency: 'MONTHLY', max_occurrences: 3 }, budget: '120.00' }));
    assert.equal(mandate.status, 202, mandate.text);
  });
});

describe('the merchant is one identity', () => {
  test('a merchant id naming casino.example under https://shop.example is 400 merchant.id, and nothing is signed', async () => {
    const before = (await settledAuditLines()).length;
    const answer = await post(body({ merchant: { name: 'Example Shop', website: 'https://shop.example', id: 'casino.example' } }));
    assert.equal(answer.status, 400, answer.text);
    assert.equal(answer.body.error.code, 'invalid_request');
    assert.equal(answer.body.error.param, 'merchant.id');
    assert.equal(auditLines().length, before);
  });

  test('a mandate at casino.example is denied by the rule on its host, and no signed cloud call was made for it', async () => {
    const before = (await settledAuditLines()).length;
    const answer = await post(body({ merchant: { name: 'Casino', website: 'https://casino.example' } }));
    assert.equal(answer.status, 403, answer.text);
    assert.equal(answer.body.error.rule, 'no-casino');
    assert.deepEqual(auditLines().slice(before), [], 'the card label is not read (a signed GET) before the decision');
  });
});

describe('decide, register, then sign', () => {
  test('a window the cloud refuses (over the card\'s daily limit) leaves no signed mandate and no ap2_mandate_signed line', async () => {
    const card = world.stack.cards[1].card_id;
    assert.equal((await world.stack.admin.request('PATCH', `/v1/sandbox/cards/${card}`, { daily_limit: '1.00' })).status, 200);
    try {
      const before = (await settledAuditLines()).length;
      const answer = await post(body({ card_id: card }));
      assert.equal(answer.status, 402, answer.text);
      assert.equal(answer.body.error.code, 'daily_limit_exceeded', answer.text);
      // The outcome line joins the next commit, at the latest 50 ms later (docs/decisions.md §41).
      const written = (await auditLinesAfter(before, 2)).map((line) => line['operation']);
      assert.deepEqual(written, ['ap2_mandate', 'authorization_outcome'], 'the window went out with its request; no mandate was signed');
      const listed = (await world.shopper.get('/authorizations')).body.authorizations as Record<string, unknown>[];
      assert.ok(listed.every((entry) => entry['card_id'] !== card), 'no authorization is left for the refused window');
    } finally {
      await world.stack.admin.request('PATCH', `/v1/sandbox/cards/${card}`, { daily_limit: '500.00' });
    }
  });

  test('an allowed mandate: the window is registered first, then the mandates are signed, and the issuer JWT names the device', async () => {
    const before = (await settledAuditLines()).length;
    const answer = await post(body());
    assert.equal(answer.status, 201, answer.text);
    const written = auditLines().slice(before).map((line) => `${String(line['operation'])} ${String(line['path'] ?? '')}`.trim());
    assert.deepEqual(written, ['ap2_mandate /v1/authorizations', 'authorization_outcome', `sign_request /v1/cards/${world.stack.cards[0].card_id}`, 'ap2_mandate_signed']);
    const deviceId = (JSON.parse(readFileSync(path.join(world.stack.home, 'config.json'), 'utf8')) as { device_id: string }).device_id;
    for (const token of [answer.body.open_checkout_mandate, answer.body.open_payment_mandate] as string[]) {
      const payload = JSON.parse(Buffer.from(token.split('.')[1] as string, 'base64url').toString('utf8')) as Record<string, unknown>;
      assert.equal(payload['iss'], `urn:latch:device:${deviceId}`);
    }
  });
});

describe('a recurring mandate', () => {
  let answer: Record<string, any>;
  before(async () => {
    const created = await post(body({ amount_max: '20.00', recurrence: { frequency: 'WEEKLY', max_occurrences: 5 }, budget: '50.00' }));
    assert.equal(created.status, 201, created.text);
    answer = created.body;
  });

  test('the open payment mandate carries amount_range per occurrence, agent_recurrence and budget as AP2 names them', async () => {
    const payment = await delegateOf(answer['open_payment_mandate']);
    assert.deepEqual(payment['constraints'].slice(0, 3), [
      { type: 'payment.amount_range', currency: 'USD', max: 2000, min: 0 },
      { type: 'payment.agent_recurrence', frequency: 'WEEKLY', max_occurrences: 5 },
      { type: 'payment.budget', max: 50, currency: 'USD' },
    ]);
  });

  test('its card window is a recurring ceiling window, weekly, with as many charges as the budget holds (2 of 20.00 in 50.00)', async () => {
    const window = await world.stack.a.get(`/authorizations/${answer['policy_id']}`);
    assert.equal(window.status, 200, window.text);
    assert.deepEqual([window.body.kind, window.body.authorization_type, window.body.interval, window.body.interval_count, window.body.max_charges], ['ap2_mandate', 'ceiling', 'week', 1, 2]);
    const over = await world.stack.charge(world.stack.cards[0].card_id, 'shop.example', '20.01');
    assert.equal(over.body.decision, 'declined', `a charge above amount_max is declined by the card: ${over.text}`);
    const first = await world.stack.charge(world.stack.cards[0].card_id, 'shop.example', '20.00');
    assert.equal(first.body.decision, 'approved', first.text);
    assert.equal(first.body.transaction.policy_id, answer['policy_id']);
    const again = await world.stack.charge(world.stack.cards[0].card_id, 'shop.example', '20.00');
    assert.equal(again.body.decision, 'declined', `one charge a week: ${again.text}`);
  });

  test('its evidence pack carries the recurrence and budget, and latch evidence verify checks the recurring mandates offline', async () => {
    const file = path.join(world.stack.root, 'ap2-recurring-pack.json');
    const exported = await runLatch(['evidence', answer['policy_id'] as string, '--out', file], { LATCH_HOME: world.stack.home, LATCH_URL: `http://127.0.0.1:${world.stack.portA}` });
    assert.equal(exported.code, 0, exported.stderr);
    const pack = JSON.parse(readFileSync(file, 'utf8')) as Record<string, any>;
    assert.deepEqual(pack['request']['ap2']['recurrence'], { frequency: 'WEEKLY', max_occurrences: 5, budget: '50.00' });
    const checked = await runLatch(['evidence', 'verify', file], { LATCH_HOME: path.join(world.stack.root, 'no-such-home') });
    assert.equal(checked.code, 0, checked.stderr + checked.stdout);
  });

  test("GET /ap2/mandates/:id/context answers the spend so far from the cloud's charges, to the agent that asked and the owner only", async () => {
    const target = `/ap2/mandates/${answer['mandate_id'] as string}/context`;
    const seen = await world.shopper.get(target);
    assert.equal(seen.status, 200, seen.text);
    assert.deepEqual(Object.keys(seen.body).sort(), ['currency', 'last_at', 'occurrences', 'total_amount']);
    assert.deepEqual([seen.body.total_amount, seen.body.currency, seen.body.occurrences], [2000, 'USD', 1]);
    assert.match(seen.body.last_at, /^\d{4}-\d\d-\d\dT/);
    assert.equal((await world.stack.a.get(target)).status, 200, 'the owner sees it');
    addAgent(world.stack.home, 'other');
    const other = await world.stack.agent('other').get(target);
    assert.deepEqual([other.status, other.body.error.code], [404, 'authorization_not_found']);
    const malformed = await world.shopper.get('/ap2/mandates/pw_1/context');
    assert.deepEqual([malformed.status, malformed.body.error.param], [400, 'mandate_id']);
  });
});

/**
 * Reasons reach the agent (issue 30 item 5): `403 policy_denied` carries the readable `reasons`
 * that the 202 and `POST /policy/check` carry, and `403 approval_denied` carries the owner's
 * `reason` (with the rule and reasons that asked), on the HTTP answer and in the client's error.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { LatchClient } from '../../src/client/latch-client.js';
import { LatchClientError } from '../../src/client/client-errors.js';
import { addAgent } from '../../src/datadir/agents.js';
import { JsonClient, startStack, type Stack } from '../support/stack.js';

const POLICY = {
  v: 1,
  default: 'allow',
  rules: [
    { id: 'no-casino', merchants: ['casino.example.com'], decision: 'deny' },
    { id: 'large', min_amount: '5.00', decision: 'ask' },
  ],
};

let stack: Stack;
let shopper: JsonClient;

before(async () => {
  stack = await startStack();
  writeFileSync(path.join(stack.home, 'policy.json'), JSON.stringify(POLICY), { mode: 0o600 });
  addAgent(stack.home, 'shopper');
  shopper = stack.agent('shopper');
});
after(() => stack.close());

const body = (merchant: string, amount: string) => ({ card_id: stack.cards[0].card_id, amount, merchant_name: merchant });

describe('the reasons in the error objects', () => {
  test('policy_denied carries the same reasons as POST /policy/check, on the wire and in the client error', async () => {
    const check = await shopper.post('/policy/check', body('casino.example.com', '1.00'));
    assert.equal(check.status, 200, check.text);
    assert.equal(check.body.decision, 'deny');
    assert.ok(check.body.reasons.length > 0);
    const denied = await shopper.post('/authorize', body('casino.example.com', '1.00'));
    assert.equal(denied.status, 403, denied.text);
    assert.equal(denied.body.error.code, 'policy_denied');
    assert.equal(denied.body.error.rule, 'no-casino');
    assert.deepEqual(denied.body.error.reasons, check.body.reasons);

    const client = new LatchClient({ env: { LATCH_HOME: stack.home, LATCH_URL: `http://127.0.0.1:${stack.portA}` }, agent: 'shopper' });
    try {
      await assert.rejects(client.authorize(body('casino.example.com', '1.00')), (error: unknown) => {
        assert.ok(error instanceof LatchClientError);
        assert.equal(error.code, 'policy_denied');
        assert.deepEqual(error.reasons, check.body.reasons);
        assert.deepEqual(error.toJSON()['reasons'], check.body.reasons);
        return true;
      });
    } finally {
      client.close();
    }
  });

  test("approval_denied carries the owner's reason and the reasons that asked; an expiry's reason is null", async () => {
    const asked = await shopper.post('/authorize', body('big.example.com', '6.00'), { 'idempotency-key': 'reasons-deny' });
    assert.equal(asked.status, 202, asked.text);
    const id = asked.body.approval_id as string;
    const denied = await stack.a.post(`/approvals/${id}/deny`, { reason: 'not this shop' });
    assert.equal(denied.status, 200, denied.text);

    const retried = await shopper.post('/authorize', body('big.example.com', '6.00'), { 'idempotency-key': 'reasons-deny' });
    assert.equal(retried.status, 403, retried.text);
    assert.equal(retried.body.error.code, 'approval_denied');
    assert.equal(retried.body.error.reason, 'not this shop');
    assert.equal(retried.body.error.rule, 'large');
    assert.deepEqual(retried.body.error.reasons, asked.body.reasons);
    assert.match(retried.body.error.message, /saying "not this shop"/);

    const client = new LatchClient({ env: { LATCH_HOME: stack.home, LATCH_URL: `http://127.0.0.1:${stack.portA}` }, agent: 'shopper' });
    try {
      await assert.rejects(client.authorize(body('big.example.com', '6.00'), { idempotencyKey: 'reasons-deny' }), (error: unknown) => {
        assert.ok(error instanceof LatchClientError);
        assert.equal(error.code, 'approval_denied');
        assert.equal(error.reason, 'not this shop');
        assert.equal(error.toJSON()['reason'], 'not this shop');
        return true;
      });
    } finally {
      client.close();
    }
  });

  test('a denial without a reason says so, with reason null', async () => {
    const asked = await shopper.post('/authorize', body('quiet.example.com', '7.00'), { 'idempotency-key': 'reasons-quiet' });
    assert.equal(asked.status, 202, asked.text);
    assert.equal((await stack.a.post(`/approvals/${asked.body.approval_id}/deny`, {})).status, 200);
    const retried = await shopper.post('/authorize', body('quiet.example.com', '7.00'), { 'idempotency-key': 'reasons-quiet' });
    assert.equal(retried.status, 403, retried.text);
    assert.equal(retried.body.error.reason, null);
    assert.match(retried.body.error.message, /without a reason/);
  });
});

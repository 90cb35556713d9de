/**
 * Variant B's POST /authorize end to end: which fields are required and their defaults, amount
 * as a JSON number or a decimal string, ttl strings, and the cloud's refusals (card of another
 * account, insufficient funds, daily limit, closed card), all through the real stack.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { readAudit } from '../../src/verify/audit-read.js';
import { startStack, type Stack } from '../support/stack.js';
import { assertMoney, authorizeB, expectError, newCard, otherAccountCard } from './variant-b-fixture.js';

const MERCHANT = 'shop.example.com';

/** windowOf reads the signed window behind a B transaction. */
async function windowOf(stack: Stack, txId: string): Promise<Record<string, any>> {
  const answer = await stack.b.get(`/transactions/${txId}`);
  assert.equal(answer.status, 200, answer.text);
  return answer.body.policy_window;
}

function lifetimeSeconds(window: Record<string, any>): number {
  return (Date.parse(window.not_after) - Date.parse(window.not_before)) / 1000;
}

describe('Variant B: POST /authorize', () => {
  let stack: Stack;
  /** A card with room for many small authorizations (balance 5,000.00, daily limit 10,000.00). */
  let roomy: string;

  before(async () => {
    stack = await startStack();
    roomy = await newCard(stack, 'Roomy', '5000.00', '10000.00');
  });
  after(() => stack.close());

  describe('required fields and defaults', () => {
    test('card_id, amount and merchant alone succeed: currency defaults to USD, ttl to 30m, type exact', async () => {
      const txId = await authorizeB(stack, { card_id: roomy, amount: 4.2, merchant: MERCHANT });
      const window = await windowOf(stack, txId);
      assert.equal(window.currency, 'USD');
      assert.equal(window.authorization_type, 'exact');
      assert.equal(lifetimeSeconds(window), 30 * 60);
      assertMoney(window.amount, 4.2, 'window amount');
    });

    test('a member set to null counts as absent: ttl null is the default 30m, currency null is USD', async () => {
      const txId = await authorizeB(stack, { card_id: roomy, amount: 1, merchant: MERCHANT, ttl: null, currency: null });
      const window = await windowOf(stack, txId);
      assert.equal(lifetimeSeconds(window), 30 * 60);
      assert.equal(window.currency, 'USD');
    });

    for (const field of ['card_id', 'amount', 'merchant']) {
      test(`${field} is required → 400 invalid_request param ${field}`, async () => {
        const body: Record<string, unknown> = { card_id: roomy, amount: 1, merchant: MERCHANT };
        delete body[field];
        expectError(await stack.b.post('/authorize', body), 400, 'invalid_request', field);
        body[field] = null;
        expectError(await stack.b.post('/authorize', body), 400, 'invalid_request', field);
      });
    }

    test('an explicit currency USD is accepted', async () => {
      const txId = await authorizeB(stack, { card_id: roomy, amount: 1, merchant: MERCHANT, currency: 'USD' });
      assert.equal((await windowOf(stack, txId)).currency, 'USD');
    });

    test('the merchant is normalized exactly as on A: upper case and a trailing dot are folded', async () => {
      const txId = await authorizeB(stack, { card_id: roomy, amount: 1, merchant: 'Shop.EXAMPLE.com.' });
      assert.equal((await windowOf(stack, txId)).merchant, MERCHANT);
    });
  });

  describe('amount: a JSON number (the spec) or a decimal string (decisions §3)', () => {
    const accepted: Array<[string, string, number]> = [
      ['JSON number 12.5', '12.5', 12.5],
      ['JSON number 12.50 (trailing zero)', '12.50', 12.5],
      ['JSON integer 7', '7', 7],
      ['JSON number 0.01 (the smallest)', '0.01', 0.01],
      ['decimal string "12.50"', '"12.50"', 12.5],
      ['decimal string "7"', '"7"', 7],
      ['decimal string "0.01"', '"0.01"', 0.01],
      ['JSON number 10000 (the maximum)', '10000', 10000],
      ['decimal string "10000.00" (the maximum)', '"10000.00"', 10000],
    ];
    for (const [name, amountJson, expected] of accepted) {
      test(`accepted: ${name} → the window holds exactly ${expected}`, async () => {
        // The largest ones need their own card: they exceed the shared card's balance.
        const cardId = expected >= 10000 ? await newCard(stack, 'Max', '10000.00', '10000.00') : roomy;
        const raw = `{"card_id":"${cardId}","amount":${amountJson},"merchant":"${MERCHANT}"}`;
        const answer = await stack.b.post('/authorize', raw);
        assert.equal(answer.status, 200, answer.text);
        assertMoney((await windowOf(stack, answer.body.tx_id)).amount, expected, 'window amount');
      });
    }

    const refused: Array<[string, string]> = [
      ['zero', '0'],
      ['zero as text', '"0.00"'],
      ['negative number', '-5'],
      ['negative text', '"-5"'],
      ['three decimals', '12.345'],
      ['three decimals as text', '"12.345"'],
      ['binary float noise 0.1+0.2', '0.30000000000000004'],
      ['exponent', '1e2'],
      ['exponent as text', '"1e2"'],
      ['above the maximum', '10000.01'],
      ['above the maximum as text', '"10000.01"'],
      ['far above the maximum', '99999999999999999999'],
      ['NaN text', '"NaN"'],
      ['Infinity text', '"Infinity"'],
      ['leading space', '" 12"'],
      ['trailing dot', '"12."'],
      ['leading dot', '".5"'],
      ['plus sign', '"+5"'],
      ['thousands separator', '"1,000"'],
      ['empty string', '""'],
      ['boolean', 'true'],
      ['array', '[12]'],
      ['object', '{"value":12}'],
    ];
    for (const [name, amountJson] of refused) {
      test(`refused: ${name} (${amountJson}) → 400 invalid_request param amount`, async () => {
        const raw = `{"card_id":"${roomy}","amount":${amountJson},"merchant":"${MERCHANT}"}`;
        expectError(await stack.b.post('/authorize', raw), 400, 'invalid_request', 'amount');
      });
    }
  });

  describe('ttl: <n>s, <n>m or <n>h within 1 minute..24 hours', () => {
    const accepted: Array<[string, number]> = [
      ['60s', 60],
      ['90s', 90],
      ['1m', 60],
      ['45m', 2700],
      ['1440m', 86_400],
      ['2h', 7200],
      ['24h', 86_400],
      ['86400s', 86_400],
    ];
    for (const [ttl, seconds] of accepted) {
      test(`ttl "${ttl}" → a window of ${seconds} s`, async () => {
        const txId = await authorizeB(stack, { card_id: roomy, amount: 1, merchant: MERCHANT, ttl });
        assert.equal(lifetimeSeconds(await windowOf(stack, txId)), seconds);
      });
    }

    const refused: unknown[] = ['30', '0m', '-5m', '99999h', '1.5m', '30 m', '5M', '59s', '0s', '86401s', '1441m', '25h', '', ' 30m', '30m ', '30min', '30d', '+5m', '05m', 'PT30M', '1e3s', '３０m', 30, 1800, true, ['30m'], { minutes: 30 }];
    for (const ttl of refused) {
      test(`ttl ${JSON.stringify(ttl)} → 400 invalid_request param ttl`, async () => {
        expectError(await stack.b.post('/authorize', { card_id: roomy, amount: 1, merchant: MERCHANT, ttl }), 400, 'invalid_request', 'ttl');
      });
    }
  });

  describe('other fields', () => {
    // A's names are unknown on B: a client mixing the variants is told which field is wrong.
    for (const field of ['merchant_name', 'ttl_minutes', 'authorization_type', 'policy_id', 'idempotency_key', 'Amount', 'extra']) {
      test(`unknown field ${field} → 400 invalid_request param ${field}`, async () => {
        const answer = await stack.b.post('/authorize', { card_id: roomy, amount: 1, merchant: MERCHANT, [field]: 'x' });
        expectError(answer, 400, 'invalid_request', field);
      });
    }

    const badValues: Array<[string, unknown]> = [
      ['card_id', 'card-123'],
      ['card_id', 'CARD_ABC'],
      ['card_id', 'tx_abc'],
      ['card_id', ''],
      ['card_id', 123],
      ['card_id', 'card_../../v1/wallet'],
      ['merchant', 'https://shop.example.com'],
      ['merchant', 'shop.example.com/path'],
      ['merchant', 'shop.example.com:443'],
      ['merchant', '127.0.0.1'],
      ['merchant', '*.example.com'],
      ['merchant', 'user@shop.example.com'],
      ['merchant', ''],
      ['merchant', 42],
      ['currency', 'usd'],
      ['currency', 'EUR'],
      ['currency', 'USDT'],
      ['currency', 'US'],
      ['currency', 840],
    ];
    for (const [field, value] of badValues) {
      test(`${field} ${JSON.stringify(value)} → 400 invalid_request param ${field}`, async () => {
        const answer = await stack.b.post('/authorize', { card_id: roomy, amount: 1, merchant: MERCHANT, [field]: value });
        expectError(answer, 400, 'invalid_request', field);
      });
    }

    for (const body of ['[]', '"authorize"', 'null', '12']) {
      test(`a body that is not an object (${body}) → 400 invalid_request param body`, async () => {
        expectError(await stack.b.post('/authorize', body), 400, 'invalid_request', 'body');
      });
    }

    test('a refused request signs nothing: the audit log does not grow', async () => {
      const before = readAudit(stack.home).length;
      expectError(await stack.b.post('/authorize', { card_id: roomy, amount: 1, merchant: MERCHANT, ttl: '0m' }), 400, 'invalid_request', 'ttl');
      expectError(await stack.b.post('/authorize', { card_id: roomy, amount: '1.001', merchant: MERCHANT }), 400, 'invalid_request', 'amount');
      assert.equal(readAudit(stack.home).length, before);
    });
  });

  describe("the cloud's refusals, as B sees them", () => {
    test("a card of another sandbox account → 404 card_not_found, and the card's existence is not revealed", async () => {
      const foreign = await otherAccountCard(stack);
      const answer = await stack.b.post('/authorize', { card_id: foreign, amount: 1, merchant: MERCHANT });
      expectError(answer, 404, 'card_not_found');
      const unknown = await stack.b.post('/authorize', { card_id: 'card_doesnotexist', amount: 1, merchant: MERCHANT });
      expectError(unknown, 404, 'card_not_found');
      assert.equal(answer.body.error.message, unknown.body.error.message);
    });

    test('more than the card balance → 402 insufficient_funds', async () => {
      const cardId = await newCard(stack, 'Small', '20.00');
      expectError(await stack.b.post('/authorize', { card_id: cardId, amount: 20.01, merchant: MERCHANT }), 402, 'insufficient_funds');
      // Exactly the balance is fine.
      await authorizeB(stack, { card_id: cardId, amount: '20.00', merchant: MERCHANT });
    });

    test('holds count: two authorizations that together exceed the balance → the second is 402', async () => {
      const cardId = await newCard(stack, 'Held', '30.00');
      await authorizeB(stack, { card_id: cardId, amount: 20, merchant: 'one.example.com' });
      expectError(await stack.b.post('/authorize', { card_id: cardId, amount: 10.01, merchant: 'two.example.com' }), 402, 'insufficient_funds');
      await authorizeB(stack, { card_id: cardId, amount: 10, merchant: 'two.example.com' });
    });

    test('more than the daily limit → 402 daily_limit_exceeded', async () => {
      const cardId = await newCard(stack, 'Limited', '100.00', '10.00');
      expectError(await stack.b.post('/authorize', { card_id: cardId, amount: 10.01, merchant: MERCHANT }), 402, 'daily_limit_exceeded');
    });

    test('a closed card → 409 card_closed, and B shows it closed', async () => {
      const cardId = await newCard(stack, 'Closing', '10.00');
      const closed = await stack.admin.request('PATCH', `/v1/sandbox/cards/${cardId}`, { status: 'closed' });
      assert.equal(closed.status, 200, closed.text);
      expectError(await stack.b.post('/authorize', { card_id: cardId, amount: 1, merchant: MERCHANT }), 409, 'card_closed');
      assert.equal((await stack.b.get(`/cards/${cardId}`)).body.status, 'closed');
    });
  });

  describe('Idempotency-Key on B (decisions §9)', () => {
    test('the same key with another body → 422 idempotency_key_reused, and nothing is authorized twice', async () => {
      const cardId = await newCard(stack, 'Idem', '50.00');
      const headers = { 'idempotency-key': 'b-authorize-reused' };
      const first = await stack.b.post('/authorize', { card_id: cardId, amount: 5, merchant: MERCHANT }, headers);
      assert.equal(first.status, 200, first.text);
      const second = await stack.b.post('/authorize', { card_id: cardId, amount: 6, merchant: MERCHANT }, headers);
      expectError(second, 422, 'idempotency_key_reused');
      const listed = await stack.b.get(`/transactions?card_id=${cardId}`);
      assert.deepEqual(listed.body.transactions.map((t: { id: string }) => t.id), [first.body.tx_id]);
    });

    test(
      'the same key and body replay the first answer (same tx_id) with no second authorization',
      async () => {
        const cardId = await newCard(stack, 'Replay', '50.00');
        const headers = { 'idempotency-key': 'b-authorize-replayed' };
        const body = { card_id: cardId, amount: 5, merchant: MERCHANT };
        const first = await stack.b.post('/authorize', body, headers);
        assert.equal(first.status, 200, first.text);
        const second = await stack.b.post('/authorize', body, headers);
        assert.equal(second.status, 200, second.text);
        assert.deepEqual(second.body, first.body);
        const listed = await stack.b.get(`/transactions?card_id=${cardId}`);
        assert.equal(listed.body.transactions.length, 1);
      },
    );

    test('an invalid Idempotency-Key → 400 invalid_request', async () => {
      const answer = await stack.b.post('/authorize', { card_id: roomy, amount: 1, merchant: MERCHANT }, { 'idempotency-key': 'x'.repeat(256) });
      assert.equal(answer.status, 400, answer.text);
      assert.equal(answer.body.error.code, 'invalid_request');
    });
  });
});

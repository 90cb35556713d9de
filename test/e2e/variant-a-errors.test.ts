/**
 * The error classes of docs/decisions.md §7 as Variant A answers them, end to end (decisions §7): missing and
 * wrong tokens, card_not_found for another account's card, insufficient funds and the daily
 * limit, invalid_request naming the field, and card data refused wherever it appears.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { holdsTestCardNumber } from '../support/card-text.js';
import { assertError } from '../support/e2e-assert.js';
import { JsonClient, startStack, type Stack } from '../support/stack.js';

let stack: Stack;
let groceries: string;
/** A card of another account on the same cloud. */
let foreignCard: string;

before(async () => {
  stack = await startStack();
  groceries = stack.cards[0].card_id;
  const other = await stack.admin.post('/v1/sandbox/setup-tokens', {});
  assert.equal(other.status, 201, other.text);
  const card = await stack.admin.post('/v1/sandbox/cards', { account_id: other.body.account_id, label: 'Not yours', balance: '0.00' });
  assert.equal(card.status, 201, card.text);
  foreignCard = card.body.card_id;
  const funds = await stack.admin.post('/v1/sandbox/deposits', { account_id: other.body.account_id, amount: '100.00' });
  assert.equal(funds.status, 200, funds.text);
});
after(() => stack.close());

function auditText(): string {
  const file = path.join(stack.home, 'audit.log');
  return existsSync(file) ? readFileSync(file, 'utf8') : '';
}

/** Every Variant A endpoint that needs the token, with a valid request. */
function tokenEndpoints(): Array<[string, string, unknown]> {
  const merchant = 'shop.example.com';
  return [
    ['GET', '/cards', undefined],
    ['GET', `/cards/${groceries}`, undefined],
    ['POST', '/authorize', { card_id: groceries, amount: 1, merchant_name: merchant }],
    ['POST', '/merchant-bind', { card_id: groceries, merchant_name: merchant }],
    ['POST', '/recurring', { card_id: groceries, amount: 1, merchant_name: merchant, interval: 'month' }],
    ['POST', '/sign-policy-window', { amount: 1, merchant_name: merchant }],
    ['POST', '/sign-card-policy-window', { card_id: groceries, amount: 1, merchant_name: merchant }],
    ['POST', '/sign-revocation', { policy_id: 'pw_abc' }],
    ['GET', '/transactions', undefined],
    ['GET', '/transactions/tx_abc', undefined],
    ['GET', '/wallet/balance', undefined],
    ['POST', '/wallet/allocate', { card_id: groceries, amount: 1 }],
    ['GET', '/v1/wallet', undefined],
    ['POST', '/v1/wallet/allocate', { card_id: groceries, amount: '1.00' }],
    ['DELETE', '/v1/anything', undefined],
  ];
}

describe('bearer token', () => {
  test('no token: 401 missing_bearer_token with WWW-Authenticate, on every endpoint but /health', async () => {
    const anonymous = new JsonClient(stack.a.baseUrl, () => undefined);
    for (const [method, target, body] of tokenEndpoints()) {
      const answer = await anonymous.request(method, target, body);
      assertError(answer, 401, 'missing_bearer_token');
      assert.equal(answer.headers.get('www-authenticate'), 'Bearer', target);
    }
    assert.equal((await anonymous.get('/health')).status, 200);
  });

  test('a wrong token, another scheme or a token in the query: refused the same way', async () => {
    const wrong = new JsonClient(stack.a.baseUrl, () => 'x'.repeat(43));
    for (const [method, target, body] of tokenEndpoints()) assertError(await wrong.request(method, target, body), 401, 'invalid_bearer_token');
    const anonymous = new JsonClient(stack.a.baseUrl, () => undefined);
    assertError(await anonymous.get('/cards', { authorization: `Basic ${stack.token()}` }), 401, 'invalid_bearer_token');
    assertError(await anonymous.get(`/cards?token=${stack.token()}`), 401, 'missing_bearer_token');
  });

  test('nothing was signed or sent upstream for a refused caller', async () => {
    const auditBefore = auditText();
    const anonymous = new JsonClient(stack.a.baseUrl, () => undefined);
    await anonymous.post('/sign-card-policy-window', { card_id: groceries, amount: 1, merchant_name: 'shop.example.com' });
    await anonymous.get('/v1/wallet');
    assert.equal(auditText(), auditBefore);
  });
});

describe('card_not_found', () => {
  test("another account's card is not found, whatever the operation", async () => {
    const cases: Array<[string, string, unknown]> = [
      ['GET', `/cards/${foreignCard}`, undefined],
      ['POST', '/authorize', { card_id: foreignCard, amount: 1, merchant_name: 'shop.example.com' }],
      ['POST', '/merchant-bind', { card_id: foreignCard, merchant_name: 'shop.example.com' }],
      ['POST', '/recurring', { card_id: foreignCard, amount: 1, merchant_name: 'shop.example.com', interval: 'day' }],
      ['POST', '/wallet/allocate', { card_id: foreignCard, amount: 1 }],
      ['GET', '/cards/card_doesnotexist', undefined],
      ['POST', '/authorize', { card_id: 'card_doesnotexist', amount: 1, merchant_name: 'shop.example.com' }],
    ];
    for (const [method, target, body] of cases) assertError(await stack.a.request(method, target, body), 404, 'card_not_found');
    const foreign = stack.sandbox.state().cards.get(foreignCard);
    assert.equal(foreign?.balance, 0, 'the foreign card got no allocation');
    assert.equal(foreign?.held, 0, 'the foreign card got no hold');
  });

  test('the transactions list never shows another account, even filtered by its card', async () => {
    const answer = await stack.a.get(`/transactions?card_id=${foreignCard}`);
    assert.equal(answer.status, 200);
    assert.deepEqual(answer.body.transactions, []);
  });

  test('an unknown transaction is transaction_not_found', async () => {
    assertError(await stack.a.get('/transactions/tx_doesnotexist'), 404, 'transaction_not_found');
  });
});

describe('insufficient funds and the daily limit', () => {
  test('authorizing more than the card balance: 402 insufficient_funds, no hold', async () => {
    assertError(await stack.a.post('/authorize', { card_id: groceries, amount: '100.01', merchant_name: 'shop.example.com' }), 402, 'insufficient_funds');
    assert.equal(stack.sandbox.state().cards.get(groceries)?.held, 0);
  });

  test('holds count: two 60.00 authorizations on a 100.00 card, the second is refused', async () => {
    const first = await stack.a.post('/authorize', { card_id: groceries, amount: 60, merchant_name: 'a.example.com' });
    assert.equal(first.status, 200, first.text);
    assertError(await stack.a.post('/authorize', { card_id: groceries, amount: 60, merchant_name: 'b.example.com' }), 402, 'insufficient_funds');
  });

  test('allocating more than the wallet has: 402 insufficient_funds', async () => {
    assertError(await stack.a.post('/wallet/allocate', { card_id: groceries, amount: '250.01' }), 402, 'insufficient_funds');
    assert.deepEqual((await stack.a.get('/wallet/balance')).body, { usdt: '400.00', allocated: '150.00', available: '250.00' });
  });

  test("above the card's daily limit: 402 daily_limit_exceeded", async () => {
    const card = stack.cards[1].card_id;
    const patched = await stack.admin.request('PATCH', `/v1/sandbox/cards/${card}`, { daily_limit: '5.00' });
    assert.equal(patched.status, 200, patched.text);
    assertError(await stack.a.post('/authorize', { card_id: card, amount: '5.01', merchant_name: 'shop.example.com' }), 402, 'daily_limit_exceeded');
    const within = await stack.a.post('/authorize', { card_id: card, amount: '5.00', merchant_name: 'shop.example.com' });
    assert.equal(within.status, 200, within.text);
  });
});

describe('invalid_request names the field', () => {
  const authorize = (fields: Record<string, unknown>) => ({ card_id: 'card_abc', amount: 1, merchant_name: 'shop.example.com', ...fields });
  const without = (name: string) => {
    const body: Record<string, unknown> = authorize({});
    delete body[name];
    return body;
  };
  const cases: Array<[string, string, string, unknown, string]> = [
    ['authorize: card_id missing', 'POST', '/authorize', without('card_id'), 'card_id'],
    ['authorize: card_id malformed', 'POST', '/authorize', authorize({ card_id: 'abc' }), 'card_id'],
    ['authorize: amount missing', 'POST', '/authorize', without('amount'), 'amount'],
    ['authorize: merchant_name missing', 'POST', '/authorize', without('merchant_name'), 'merchant_name'],
    ['authorize: amount zero', 'POST', '/authorize', authorize({ amount: 0 }), 'amount'],
    ['authorize: amount negative', 'POST', '/authorize', authorize({ amount: -1 }), 'amount'],
    ['authorize: amount with an exponent', 'POST', '/authorize', authorize({ amount: '1e3' }), 'amount'],
    ['authorize: amount JSON exponent', 'POST', '/authorize', '{"card_id":"card_abc","amount":1E2,"merchant_name":"shop.example.com"}', 'amount'],
    ['authorize: three decimals', 'POST', '/authorize', authorize({ amount: '12.345' }), 'amount'],
    ['authorize: above 10,000.00', 'POST', '/authorize', authorize({ amount: '10000.01' }), 'amount'],
    ['authorize: NaN text', 'POST', '/authorize', authorize({ amount: 'NaN' }), 'amount'],
    ['authorize: boolean amount', 'POST', '/authorize', authorize({ amount: true }), 'amount'],
    ['authorize: merchant with a scheme and path', 'POST', '/authorize', authorize({ merchant_name: 'https://shop.example.com/x' }), 'merchant_name'],
    ['authorize: merchant an IP literal', 'POST', '/authorize', authorize({ merchant_name: '127.0.0.1' }), 'merchant_name'],
    ['authorize: lower-case currency', 'POST', '/authorize', authorize({ currency: 'usd' }), 'currency'],
    ['authorize: a currency this product does not have', 'POST', '/authorize', authorize({ currency: 'EUR' }), 'currency'],
    ['authorize: USDT is the wallet, not a card currency', 'POST', '/authorize', authorize({ currency: 'USDT' }), 'currency'],
    ['authorize: unknown authorization_type', 'POST', '/authorize', authorize({ authorization_type: 'max' }), 'authorization_type'],
    ['authorize: ttl_minutes 0', 'POST', '/authorize', authorize({ ttl_minutes: 0 }), 'ttl_minutes'],
    ['authorize: ttl_minutes 1441', 'POST', '/authorize', authorize({ ttl_minutes: 1441 }), 'ttl_minutes'],
    ['authorize: ttl_minutes fractional', 'POST', '/authorize', authorize({ ttl_minutes: 1.5 }), 'ttl_minutes'],
    ['authorize: ttl_minutes as text', 'POST', '/authorize', authorize({ ttl_minutes: '30' }), 'ttl_minutes'],
    ['authorize: an unknown field', 'POST', '/authorize', authorize({ merchant_domain: 'x.example.com' }), 'merchant_domain'],
    ['merchant-bind: amount above 1.00', 'POST', '/merchant-bind', { card_id: 'card_abc', merchant_name: 'shop.example.com', amount: '1.01' }, 'amount'],
    ['merchant-bind: ttl_minutes 1441', 'POST', '/merchant-bind', { card_id: 'card_abc', merchant_name: 'shop.example.com', ttl_minutes: 1441 }, 'ttl_minutes'],
    ['recurring: interval missing', 'POST', '/recurring', authorize({}), 'interval'],
    ['recurring: interval hour', 'POST', '/recurring', authorize({ interval: 'hour' }), 'interval'],
    ['recurring: interval_count 0', 'POST', '/recurring', authorize({ interval: 'day', interval_count: 0 }), 'interval_count'],
    ['recurring: starts_at not ISO', 'POST', '/recurring', authorize({ interval: 'day', starts_at: 'tomorrow' }), 'starts_at'],
    ['recurring: starts_at in the past', 'POST', '/recurring', authorize({ interval: 'day', starts_at: '2020-01-01T00:00:00Z' }), 'starts_at'],
    ['recurring: starts_at more than a year ahead', 'POST', '/recurring', authorize({ interval: 'day', starts_at: '2999-01-01T00:00:00Z' }), 'starts_at'],
    ['recurring: ends_at before the start', 'POST', '/recurring', authorize({ interval: 'day', ends_at: '2020-01-01T00:00:00Z' }), 'ends_at'],
    ['recurring: max_charges 0', 'POST', '/recurring', authorize({ interval: 'day', max_charges: 0 }), 'max_charges'],
    ['sign-policy-window: card_id is not a field', 'POST', '/sign-policy-window', authorize({}), 'card_id'],
    ['sign-revocation: policy_id malformed', 'POST', '/sign-revocation', { policy_id: 'abc' }, 'policy_id'],
    ['wallet/allocate: amount zero', 'POST', '/wallet/allocate', { card_id: 'card_abc', amount: 0 }, 'amount'],
    ['transactions: limit 0', 'GET', '/transactions?limit=0', undefined, 'limit'],
    ['transactions: limit 101', 'GET', '/transactions?limit=101', undefined, 'limit'],
    ['transactions: unknown status', 'GET', '/transactions?status=paid', undefined, 'status'],
    ['transactions: starting_after malformed', 'GET', '/transactions?starting_after=abc', undefined, 'starting_after'],
    ['transactions: unknown query parameter', 'GET', '/transactions?sort=asc', undefined, 'sort'],
    ['cards: unknown query parameter', 'GET', '/cards?all=1', undefined, 'all'],
    ['card: malformed id in the path', 'GET', '/cards/abc', undefined, 'card_id'],
    ['transaction: malformed id in the path', 'GET', '/transactions/abc', undefined, 'tx_id'],
    ['Idempotency-Key malformed', 'POST', '/authorize', authorize({}), 'Idempotency-Key'],
  ];
  for (const [name, method, target, body, param] of cases) {
    test(name, async () => {
      const headers: Record<string, string> = name.startsWith('Idempotency-Key') ? { 'idempotency-key': 'k'.repeat(256) } : {};
      const answer = await stack.a.request(method, target, body, headers);
      assertError(answer, 400, 'invalid_request', param);
    });
  }

  test('no window was registered by any refused request', () => {
    const merchants = [...stack.sandbox.state().authorizations.values()].map((a) => a.merchant);
    assert.ok(!merchants.includes('x.example.com'));
  });
});

describe('card_data_not_accepted', () => {
  const pan = '4111 1111 1111 1111';
  const cases: Array<[string, string, string, unknown]> = [
    ['a card_number field', 'POST', '/authorize', { card_id: groceries, amount: 1, merchant_name: 'shop.example.com', card_number: '1' }],
    ['a cvv field', 'POST', '/sign-card-policy-window', { card_id: groceries, amount: 1, merchant_name: 'shop.example.com', cvv: '123' }],
    ['a PAN inside a string', 'POST', '/sign-revocation', { policy_id: 'pw_abc', reason: `card ${pan}` }],
    ['a PAN as a JSON number', 'POST', '/authorize', `{"card_id":"card_abc","amount":4111111111111111,"merchant_name":"shop.example.com"}`],
    ['a PAN in the query', 'GET', `/transactions?starting_after=${encodeURIComponent(pan)}`, undefined],
    ['a PAN in the path', 'GET', '/cards/4111111111111111', undefined],
    ['a PAN in a proxied body', 'POST', '/v1/wallet/allocate', { card_id: 'card_abc', amount: '1.00', note: pan }],
    ['a pan field in a proxied query', 'GET', '/v1/cards?pan=1', undefined],
  ];
  for (const [name, method, target, body] of cases) {
    test(`${name}: 400, nothing echoed`, async () => {
      const answer = await stack.a.request(method, target, body);
      assertError(answer, 400, 'card_data_not_accepted');
      assert.equal(answer.body.error.param, undefined);
      assert.ok(!holdsTestCardNumber(answer.text), answer.text);
    });
  }
  test('the daemon log never holds the card number', () => {
    assert.ok(!holdsTestCardNumber(stack.logs()));
  });
});

describe('front-door classes on Variant A', () => {
  test('not JSON: 415; too large: 413; unknown path: 404; wrong method: 405', async () => {
    assertError(await stack.a.post('/authorize', 'x', { 'content-type': 'text/plain' }), 415, 'unsupported_media_type');
    assertError(await stack.a.post('/authorize', JSON.stringify({ pad: 'x'.repeat(70 * 1024) })), 413, 'payload_too_large');
    assertError(await stack.a.get('/nothing-here'), 404, 'not_found');
    assertError(await stack.a.request('DELETE', '/cards'), 405, 'method_not_allowed');
  });
});

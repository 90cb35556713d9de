/**
 * Variant B's listener (decisions §2): every endpoint, /health included, needs the bearer token;
 * it passes the same front door as A; it has no /v1 proxy and none of A's extra endpoints.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { bindCore } from '../../src/daemon/core-binding.js';
import { listenerDeps } from '../../src/daemon/listener-deps.js';
import { createServices } from '../../src/daemon/services.js';
import { createLogger } from '../../src/log/logger.js';
import { variantBRoutes } from '../../src/variant-b/routes.js';
import { sendRaw } from '../http/raw-client.js';
import { JsonClient, startStack, type Stack } from '../support/stack.js';
import { authorizeB, bRoutes, expectError } from './variant-b-fixture.js';

describe('Variant B: the bearer token on every endpoint', () => {
  let stack: Stack;
  let cardId: string;
  let txId: string;
  let anonymous: JsonClient;
  let wrongToken: JsonClient;

  before(async () => {
    stack = await startStack();
    cardId = stack.cards[0].card_id;
    txId = await authorizeB(stack, { card_id: cardId, amount: 2, merchant: 'auth.example.com' });
    anonymous = new JsonClient(stack.b.baseUrl, () => undefined);
    // A well-formed token of the right length that is not the daemon's.
    wrongToken = new JsonClient(stack.b.baseUrl, () => 'A'.repeat(43));
  });
  after(() => stack.close());

  test("the table above covers exactly B's route table", () => {
    const services = createServices({ home: '/nonexistent/latch-home', logger: createLogger({ level: 'silent' }), env: {} });
    const served = variantBRoutes(listenerDeps(services, bindCore(services, undefined), () => ({ url: 'http://localhost:7724/login#test', expires_at: '2026-01-01T00:00:00Z' })).b).map((route) => `${route.method} ${route.pattern}`).sort();
    const tested = bRoutes('card_x', 'tx_x').map((route) => `${route.method} ${route.path.replace('card_x', ':card_id').replace('tx_x', ':tx_id')}`).sort();
    assert.deepEqual(tested, served);
  });

  for (const index of bRoutes('card_x', 'tx_x').keys()) {
    test(`B route #${index}: no token → 401 missing_bearer_token with WWW-Authenticate, wrong token → 401 invalid_bearer_token, right token → 200`, async () => {
      const route = bRoutes(cardId, txId)[index];
      assert.ok(route !== undefined);
      const missing = await anonymous.request(route.method, route.path, route.body);
      expectError(missing, 401, 'missing_bearer_token');
      assert.equal(missing.headers.get('www-authenticate'), 'Bearer');
      const wrong = await wrongToken.request(route.method, route.path, route.body);
      expectError(wrong, 401, 'invalid_bearer_token');
      assert.match(wrong.headers.get('www-authenticate') ?? '', /^Bearer/);
      const allowed = await stack.b.request(route.method, route.path, route.body);
      assert.equal(allowed.status, 200, `${route.method} ${route.path}: ${allowed.text}`);
    });
  }

  test('the token is accepted only in the Authorization header, never in the query', async () => {
    const answer = await anonymous.get(`/health?token=${encodeURIComponent(stack.token())}`);
    expectError(answer, 401, 'missing_bearer_token');
  });

  const malformedHeaders: Array<[string, (token: string) => string]> = [
    ['Basic scheme', (token) => `Basic ${token}`],
    ['Bearer without a value', () => 'Bearer '],
    ['token with a trailing character', (token) => `Bearer ${token}x`],
    ['token cut short by one character', (token) => `Bearer ${token.slice(0, -1)}`],
  ];
  for (const [name, header] of malformedHeaders) {
    test(`/health with ${name} → 401`, async () => {
      const answer = await anonymous.get('/health', { authorization: header(stack.token()) });
      assert.equal(answer.status, 401, answer.text);
      assert.match(answer.body.error.code, /^(missing|invalid)_bearer_token$/);
    });
  }

  test('A /health stays public while B /health does not (the two variants differ only at the edge)', async () => {
    const a = new JsonClient(stack.a.baseUrl, () => undefined);
    assert.equal((await a.get('/health')).status, 200);
    expectError(await anonymous.get('/health'), 401, 'missing_bearer_token');
  });

  // Unknown paths need the token too: the front door checks it before routing, so an
  // unauthenticated caller cannot even learn which paths exist.
  const notOnB = ['/v1/wallet', '/v1/cards', '/v1/authorizations', '/merchant-bind', '/recurring', '/sign-policy-window', '/sign-card-policy-window', '/sign-revocation', '/nope'];
  for (const path of notOnB) {
    test(`${path} on B: 401 without the token, 404 not_found with it (no /v1 proxy, none of A's extras)`, async () => {
      expectError(await anonymous.get(path), 401, 'missing_bearer_token');
      const method = path.startsWith('/v1') || path === '/nope' ? 'GET' : 'POST';
      const answer = await stack.b.request(method, path, method === 'POST' ? {} : undefined);
      expectError(answer, 404, 'not_found');
    });
  }

  test('POST /v1/authorizations through B is 404 and nothing reaches the cloud', async () => {
    const before = await stack.a.get('/v1/authorizations');
    const answer = await stack.b.post('/v1/authorizations', { jws: 'x.y.z' });
    expectError(answer, 404, 'not_found');
    const afterwards = await stack.a.get('/v1/authorizations');
    assert.deepEqual(afterwards.body, before.body);
  });

  const wrongMethods: Array<[string, string]> = [
    ['POST', '/health'],
    ['POST', '/cards'],
    ['DELETE', '/cards/card_abc'],
    ['GET', '/authorize'],
    ['PUT', '/transactions'],
    ['GET', '/wallet/allocate'],
    ['POST', '/wallet/balance'],
  ];
  for (const [method, path] of wrongMethods) {
    test(`${method} ${path} on B → 405 method_not_allowed`, async () => {
      const answer = await stack.b.request(method, path, method === 'POST' || method === 'PUT' ? {} : undefined);
      expectError(answer, 405, 'method_not_allowed');
    });
  }

  test('B has the same front door: a foreign Host is refused on /health even with the token', async () => {
    const answer = await sendRaw(stack.portB, {
      target: '/health',
      headers: [
        ['Host', `evil.example:${stack.portB}`],
        ['Authorization', `Bearer ${stack.token()}`],
      ],
    });
    assert.equal(answer.status, 403);
    assert.equal(JSON.parse(answer.body).error.code, 'forbidden_host');
  });

  test("B refuses A's port in Host: each listener accepts only its own port", async () => {
    const answer = await sendRaw(stack.portB, {
      target: '/health',
      headers: [
        ['Host', `127.0.0.1:${stack.portA}`],
        ['Authorization', `Bearer ${stack.token()}`],
      ],
    });
    assert.equal(answer.status, 403);
    assert.equal(JSON.parse(answer.body).error.code, 'forbidden_host');
  });

  test('B has the same front door: an Origin header is refused', async () => {
    expectError(await stack.b.get('/cards', { origin: 'https://evil.example' }), 403, 'forbidden_origin');
  });

  test('B has the same front door: card data in a body is refused and never echoed', async () => {
    const pan = '4111 1111 1111 1111';
    const answer = await stack.b.post('/authorize', { card_id: cardId, amount: 1, merchant: 'shop.example.com', currency: pan });
    expectError(answer, 400, 'card_data_not_accepted');
    assert.ok(!answer.text.includes('1111 1111'));
    expectError(await stack.b.post('/wallet/allocate', { card_id: cardId, amount: 1, cvv: '123' }), 400, 'card_data_not_accepted');
  });

  test('B has the same front door: a POST without JSON content type → 415', async () => {
    const answer = await stack.b.post('/authorize', '{}', { 'content-type': 'text/plain' });
    expectError(answer, 415, 'unsupported_media_type');
  });

  test('no response of B carries the token', async () => {
    for (const route of bRoutes(cardId, txId)) {
      const answer = await stack.b.request(route.method, route.path, route.body);
      assert.ok(!answer.text.includes(stack.token()), `${route.path} echoed the token`);
    }
    assert.ok(!stack.logs().includes(stack.token()), 'the daemon logged the token');
  });
});

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createServices } from '../../src/daemon/services.js';
import { bindCore } from '../../src/daemon/core-binding.js';
import { listenerDeps } from '../../src/daemon/listener-deps.js';
import { Router } from '../../src/http/router.js';
import { createLogger } from '../../src/log/logger.js';
import { variantARoutes } from '../../src/variant-a/routes.js';
import { variantBRoutes } from '../../src/variant-b/routes.js';
import { signingProxyRoutes } from '../../src/proxy/signing-proxy.js';

const services = createServices({ home: '/nonexistent/latch-home', logger: createLogger({ level: 'silent' }), env: {} });
const deps = listenerDeps(services, bindCore(services, undefined), () => ({ url: 'http://localhost:7724/login#test', expires_at: '2026-01-01T00:00:00Z' }));
const tables = { a: variantARoutes(deps.a), b: variantBRoutes(deps.b) };
const PROXY_ROUTE_NAMES = signingProxyRoutes(() => { throw new Error('not called'); }).map((route) => `${route.method} ${route.pattern}`);

describe('route tables', () => {
  for (const [name, routes] of Object.entries(tables)) {
    test(`Variant ${name.toUpperCase()} has no duplicate (method, pattern) and every pattern is absolute`, () => {
      assert.ok(routes.length > 0);
      assert.doesNotThrow(() => new Router(routes));
    });
    test(`Variant ${name.toUpperCase()} serves GET /health`, () => {
      assert.ok(routes.some((route) => route.method === 'GET' && route.pattern === '/health'));
    });
  }

  test('on Variant A only GET /health, the public key directories (Web Bot Auth, AP2 mandate JWKS) and POST /owner/sessions are public', () => {
    const publicRoutes = tables.a.filter((route) => route.access === 'public').map((route) => `${route.method} ${route.pattern}`);
    assert.deepEqual(publicRoutes, ['GET /ap2/jwks', 'GET /health', 'POST /owner/sessions', 'GET /web-bot-auth/directory']);
  });

  test('on Variant B every route needs the token, /health included', () => {
    assert.deepEqual(tables.b.filter((route) => route.access === 'public'), []);
  });

  test('Variant A serves exactly the decided endpoint set (docs/decisions.md §2, §4, §15.2, §15.3, §15.4, §22, §30, §32, §35)', () => {
    assert.deepEqual(tables.a.map((route) => `${route.method} ${route.pattern}`).sort(), [
      'DELETE /agents/:name',
      'DELETE /owner/sessions/current',
      'GET /agents',
      'GET /ap2/jwks',
      'GET /ap2/mandates/:mandate_id/context',
      'GET /approvals',
      'GET /approvals/:approval_id',
      'GET /audit',
      'GET /audit/verify',
      'GET /authorizations',
      'GET /authorizations/:policy_id',
      'GET /authorizations/:policy_id/evidence',
      'GET /cards',
      'GET /cards/:card_id',
      'GET /health',
      'GET /policy',
      'GET /transactions',
      'GET /transactions/:tx_id',
      'GET /wallet/balance',
      'GET /web-bot-auth/directory',
      'GET /web-bot-auth/keys/:name',
      'POST /agents',
      'POST /agents/:name/rotate',
      'POST /ap2/mandates',
      'POST /approvals/:approval_id/approve',
      'POST /approvals/:approval_id/deny',
      'POST /authorizations/:policy_id/cancel',
      'POST /authorize',
      'POST /console/login-code',
      'POST /merchant-bind',
      'POST /owner/sessions',
      'POST /pause',
      'POST /policy/check',
      'POST /recurring',
      'POST /resume',
      'POST /sign-card-policy-window',
      'POST /sign-policy-window',
      'POST /sign-revocation',
      'POST /wallet/allocate',
      'POST /web-bot-auth/sign',
      'PUT /policy',
      'GET /x402/assets',
      'POST /x402/authorize',
      'POST /x402/authorizations/:authorization_id/payload',
      'POST /x402/authorizations/:authorization_id/release',
      'POST /x402/authorizations/:authorization_id/settlement',
      // The /v1 proxy's routes come from its one table (src/proxy/proxy-routes.ts).
      ...PROXY_ROUTE_NAMES,
    ].sort());
  });

  test("Variant B serves exactly the spec's B endpoint set", () => {
    assert.deepEqual(tables.b.map((route) => `${route.method} ${route.pattern}`).sort(), [
      'GET /cards',
      'GET /cards/:card_id',
      'GET /health',
      'GET /transactions',
      'GET /transactions/:tx_id',
      'GET /wallet/balance',
      'POST /authorize',
      'POST /wallet/allocate',
    ]);
  });

  test('Variant B has no /v1 proxy', () => {
    assert.deepEqual(tables.b.filter((route) => route.pattern.startsWith('/v1')), []);
  });
});

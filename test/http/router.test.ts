import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { LatchError } from '../../src/errors/latch-error.js';
import type { Route } from '../../src/http/route.js';
import { assertNoDuplicateRoutes, MethodNotAllowed, Router, routeShape } from '../../src/http/router.js';

const route = (method: Route['method'], pattern: string): Route => ({ method, pattern, access: 'agents', handler: () => ({ status: 200, body: {} }) });

const router = new Router([
  route('GET', '/health'),
  route('GET', '/cards'),
  route('GET', '/cards/:card_id'),
  route('DELETE', '/cards/:card_id'),
  route('POST', '/wallet/allocate'),
  route('*', '/v1/*'),
]);

describe('Router.match', () => {
  const found: Array<[string, string, string, Record<string, string>]> = [
    ['GET', '/health', '/health', {}],
    ['GET', '/cards/card_abc', '/cards/:card_id', { card_id: 'card_abc' }],
    ['GET', '/cards/card%20x', '/cards/:card_id', { card_id: 'card x' }],
    ['DELETE', '/cards/card_abc', '/cards/:card_id', { card_id: 'card_abc' }],
    ['POST', '/v1/authorizations', '/v1/*', {}],
    ['PATCH', '/v1/a/b/c', '/v1/*', {}],
  ];
  for (const [method, path, pattern, params] of found) {
    test(`${method} ${path} → ${pattern}`, () => {
      const match = router.match(method, path);
      assert.equal(match.route.pattern, pattern);
      assert.deepEqual(match.params, params);
    });
  }

  const missing: Array<[string, string]> = [
    ['GET', '/'],
    ['GET', '/healthz'],
    ['GET', '/health/'],
    ['GET', '/cards/'],
    ['GET', '/cards/a/b'],
    ['GET', '/cards/%E0%A4%A'],
    ['GET', '/v1'],
    ['GET', '/v1/'],
    ['GET', '//health'],
    ['GET', '/HEALTH'],
  ];
  for (const [method, path] of missing) {
    test(`${method} ${path} → not_found`, () => {
      assert.throws(() => router.match(method, path), (error: unknown) => error instanceof LatchError && error.code === 'not_found');
    });
  }

  test('a known path with another method → method_not_allowed with the Allow list', () => {
    assert.throws(
      () => router.match('POST', '/cards/card_abc'),
      (error: unknown) => error instanceof MethodNotAllowed && error.code === 'method_not_allowed' && error.allow.join() === 'DELETE,GET',
    );
  });
});

describe('route table checks', () => {
  test('routeShape ignores parameter names', () => {
    assert.equal(routeShape('/cards/:card_id'), routeShape('/cards/:id'));
    assert.notEqual(routeShape('/cards/:id'), routeShape('/cards/list'));
  });

  const bad: Array<[string, Route[]]> = [
    ['same method and pattern', [route('GET', '/cards'), route('GET', '/cards')]],
    ['same shape, other parameter name', [route('GET', '/cards/:card_id'), route('GET', '/cards/:id')]],
    ['relative pattern', [route('GET', 'cards')]],
  ];
  for (const [name, routes] of bad) {
    test(`refuses ${name}`, () => {
      assert.throws(() => assertNoDuplicateRoutes(routes));
      assert.throws(() => new Router(routes));
    });
  }

  test('accepts the same pattern under different methods', () => {
    assert.doesNotThrow(() => new Router([route('GET', '/cards/:id'), route('DELETE', '/cards/:id')]));
  });
});

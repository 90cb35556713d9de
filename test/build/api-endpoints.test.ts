/**
 * docs/api.md is the reference of the local API: every route of Variant A's and Variant B's tables
 * appears there as `METHOD /pattern` (issue 44 item 8; POST /console/login-code was missing).
 * The list is derived from the route tables the daemon serves, so a route added later without its
 * documentation fails here. The /v1/* signing proxy's rows are documented in its own table, by
 * path, and checked the same way.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createServices } from '../../src/daemon/services.js';
import { bindCore } from '../../src/daemon/core-binding.js';
import { listenerDeps } from '../../src/daemon/listener-deps.js';
import { createLogger } from '../../src/log/logger.js';
import { variantARoutes } from '../../src/variant-a/routes.js';
import { variantBRoutes } from '../../src/variant-b/routes.js';
import { signingProxyRoutes } from '../../src/proxy/signing-proxy.js';
import { REPO_ROOT } from '../support/paths.js';

const services = createServices({ home: '/nonexistent/latch-home', logger: createLogger({ level: 'silent' }), env: {} });
const deps = listenerDeps(services, bindCore(services, undefined), () => ({ url: 'http://localhost:7724/login#test', expires_at: '2026-01-01T00:00:00Z' }));
const proxy = new Set(signingProxyRoutes(() => { throw new Error('not called'); }).map((route) => `${route.method} ${route.pattern}`));
const api = readFileSync(path.join(REPO_ROOT, 'docs', 'api.md'), 'utf8');

/** documented reports whether api.md names the route: `METHOD /pattern` (or `METHOD /pattern[?query]`). */
function documented(method: string, pattern: string): boolean {
  const escaped = pattern.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`${method} ${escaped}(?![A-Za-z0-9_/-])`).test(api);
}

for (const [variant, routes] of [['A', variantARoutes(deps.a)], ['B', variantBRoutes(deps.b)]] as const) {
  test(`docs/api.md names every route of Variant ${variant}'s table`, () => {
    const names = routes.map((route) => `${route.method} ${route.pattern}`);
    assert.ok(names.length > 5, 'the table was built');
    const missing = routes.filter((route) => !proxy.has(`${route.method} ${route.pattern}`) && !documented(route.method, route.pattern)).map((route) => `${route.method} ${route.pattern}`);
    assert.deepEqual(missing, [], `docs/api.md lacks ${missing.join(', ')}`);
  });
}

test('docs/api.md names every path of the /v1/* signing proxy', () => {
  const paths = [...new Set([...proxy].map((name) => name.split(' ')[1] as string))].filter((pattern) => !pattern.includes('*'));
  const missing = paths.filter((pattern) => !api.includes(pattern));
  assert.deepEqual(missing, [], `docs/api.md lacks ${missing.join(', ')}`);
});

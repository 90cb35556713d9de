/**
 * What answers without a token, as README.md and SECURITY.md say it (issue 43 item 6): every
 * paragraph of theirs that speaks of what works without a token, or of public routes, and names
 * Variant A routes, names exactly the routes the route table marks `public` — read from the
 * table, so a route made public (or no longer) fails here until the text says so.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { createServices } from '../../src/daemon/services.js';
import { bindCore } from '../../src/daemon/core-binding.js';
import { listenerDeps } from '../../src/daemon/listener-deps.js';
import { createLogger } from '../../src/log/logger.js';
import { variantARoutes } from '../../src/variant-a/routes.js';

/** Variant A's route table as the daemon builds it (as test/daemon/route-tables.test.ts builds it). */
function tableA() {
  const services = createServices({ home: '/nonexistent/latch-home', logger: createLogger({ level: 'silent' }), env: {} });
  return variantARoutes(listenerDeps(services, bindCore(services, undefined), () => ({ url: 'http://localhost:7724/login#test', expires_at: '2026-01-01T00:00:00Z' })).a);
}

const ROOT = new URL('../../', import.meta.url);
const CLAIM = /public routes?\b|without (a|the|any) token|(works|answers?) without it/i;
const ROUTE = /`(GET|POST|PUT|PATCH|DELETE) (\/[^`\s]*)`/g;

/** The paragraphs of a document, each item of a list its own. */
function paragraphs(file: string): string[] {
  return readFileSync(new URL(file, ROOT), 'utf8')
    .split(/\n\s*\n/)
    .flatMap((block) => block.split(/\n(?=(?:\d+\.|-) )/));
}

test('every paragraph of README.md and SECURITY.md that says what answers without a token names exactly the public routes of the route table', () => {
  const routes = tableA();
  const publicRoutes = routes.filter((route) => route.access === 'public').map((route) => `${route.method} ${route.pattern}`).sort();
  const routesOfA = new Set(routes.map((route) => `${route.method} ${route.pattern}`));
  assert.ok(publicRoutes.length >= 1);
  let claims = 0;
  for (const file of ['README.md', 'SECURITY.md']) {
    for (const paragraph of paragraphs(file)) {
      if (!CLAIM.test(paragraph)) continue;
      const named = [...new Set([...paragraph.matchAll(ROUTE)].map((m) => `${m[1]} ${m[2]}`).filter((route) => routesOfA.has(route)))].sort();
      if (named.length === 0) continue;
      claims++;
      assert.deepEqual(named, publicRoutes, `${file}: ${paragraph.slice(0, 160).replace(/\s+/g, ' ')}…`);
    }
  }
  assert.ok(claims >= 4, `only ${claims} claims were found: README's two and SECURITY.md's lists`);
});

/**
 * The console listener's one route table (docs/decisions.md §29.2, §29.7): its pages, its own JSON
 * routes and the routes of Variant A its page calls, mounted under /console/api/a. Every request
 * reaches one of these through the one front door; there is no other way into a handler.
 */
import { mountRoutes, type Route } from '../http/route.js';
import type { ConsoleDeps } from './console-deps.js';
import { CONSOLE_A_PREFIX } from './console-headers.js';
import { consolePageRoutes } from './console-pages.js';
import { consoleRoutes } from './console-routes.js';

/**
 * The routes of Variant A the console's page (assets/console.js) calls, as `METHOD /pattern`, and
 * no other: a session cookie must not reach the signing primitives, the wallet, the /v1 proxy or
 * POST /owner/sessions (which would hand a page script a bearer). A test reads console.js and
 * checks that this list is exactly what it calls.
 */
export const CONSOLE_A_ROUTES: readonly string[] = [
  'GET /agents',
  'POST /agents',
  'DELETE /agents/:name',
  'POST /agents/:name/rotate',
  'GET /approvals',
  'GET /approvals/:approval_id',
  'POST /approvals/:approval_id/approve',
  'POST /approvals/:approval_id/deny',
  'GET /authorizations',
  'POST /authorizations/:policy_id/cancel',
  'GET /cards',
  'POST /pause',
  'GET /policy',
  'PUT /policy',
  'POST /resume',
];

/** consoleARoutes picks the allow-listed routes out of Variant A's table; a name it lacks is a programming error. */
export function consoleARoutes(routesA: readonly Route[]): Route[] {
  return CONSOLE_A_ROUTES.map((name) => {
    const found = routesA.find((route) => `${route.method} ${route.pattern}` === name);
    if (found === undefined) throw new Error(`consoleARoutes: Variant A has no route ${name}`);
    return found;
  });
}

/** consoleTable is the console listener's route table, given Variant A's. */
export function consoleTable(deps: ConsoleDeps, routesA: readonly Route[]): Route[] {
  return [...consolePageRoutes(deps.port), ...consoleRoutes(deps), ...mountRoutes(CONSOLE_A_PREFIX, consoleARoutes(routesA))];
}

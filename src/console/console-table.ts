/**
 * The console listener's one route table (docs/decisions.md §29.2): its pages, its own JSON routes
 * and Variant A's routes mounted under /console/api/a. Every request reaches one of these through
 * the one front door; there is no other way into a handler.
 */
import { mountRoutes, type Route } from '../http/route.js';
import type { ConsoleDeps } from './console-deps.js';
import { CONSOLE_A_PREFIX } from './console-headers.js';
import { consolePageRoutes } from './console-pages.js';
import { consoleRoutes } from './console-routes.js';

/** consoleTable is the console listener's route table, given Variant A's. */
export function consoleTable(deps: ConsoleDeps, routesA: readonly Route[]): Route[] {
  return [...consolePageRoutes(deps.port), ...consoleRoutes(deps), ...mountRoutes(CONSOLE_A_PREFIX, routesA)];
}

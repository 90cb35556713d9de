import { LatchError } from '../errors/latch-error.js';
import type { Route } from './route.js';

export interface RouteMatch {
  route: Route;
  params: Record<string, string>;
}

interface CompiledRoute {
  route: Route;
  segments: string[];
  prefix: boolean;
}

/**
 * Router matches a method and path against a route table. A path that matches no pattern is
 * `not_found`; a path that matches with another method is `method_not_allowed` and the error
 * carries the allowed methods. An exact pattern wins over a prefix (`/v1/*`) that also matches, so
 * that one proxied path (a revocation) can declare its own access beside the prefix's.
 */
export class Router {
  private readonly compiled: CompiledRoute[];
  // Matching order: every exact pattern, then every prefix, each in declaration order.
  private readonly matchOrder: CompiledRoute[];

  constructor(routes: readonly Route[]) {
    assertNoDuplicateRoutes(routes);
    this.compiled = routes.map((route) => {
      const prefix = route.pattern.endsWith('/*');
      const body = prefix ? route.pattern.slice(0, -2) : route.pattern;
      return { route, segments: body.split('/').slice(1), prefix };
    });
    this.matchOrder = [...this.compiled.filter((c) => !c.prefix), ...this.compiled.filter((c) => c.prefix)];
  }

  /** routes returns the table in declaration order. */
  routes(): Route[] {
    return this.compiled.map((c) => c.route);
  }

  /** match finds the route for method and path, or throws not_found / method_not_allowed. */
  match(method: string, path: string): RouteMatch {
    const pathSegments = path.split('/').slice(1);
    const allowed = new Set<string>();
    for (const candidate of this.matchOrder) {
      const params = matchSegments(candidate, pathSegments);
      if (params === undefined) continue;
      if (candidate.route.method === '*' || candidate.route.method === method) return { route: candidate.route, params };
      allowed.add(candidate.route.method);
    }
    if (allowed.size > 0) {
      throw new MethodNotAllowed([...allowed].sort());
    }
    throw new LatchError('not_found');
  }
}

/** MethodNotAllowed is the 405 error with the Allow list the response must carry. */
export class MethodNotAllowed extends LatchError {
  constructor(readonly allow: string[]) {
    super('method_not_allowed');
  }
}

/**
 * routeShape names what a pattern matches, ignoring parameter names: `/cards/:card_id` and
 * `/cards/:id` have the same shape, so one of them could never be reached.
 */
export function routeShape(pattern: string): string {
  return pattern
    .split('/')
    .map((segment) => (segment.startsWith(':') ? ':' : segment))
    .join('/');
}

/**
 * assertNoDuplicateRoutes throws when two routes share a method and a shape, or a pattern is not
 * absolute: a route table with an unreachable entry is a programming error.
 */
export function assertNoDuplicateRoutes(routes: readonly Route[]): void {
  const seen = new Set<string>();
  for (const route of routes) {
    if (!route.pattern.startsWith('/')) throw new Error(`route pattern ${route.pattern} does not start with /`);
    const key = `${route.method} ${routeShape(route.pattern)}`;
    if (seen.has(key)) throw new Error(`duplicate route ${route.method} ${route.pattern}`);
    seen.add(key);
  }
}

function matchSegments(candidate: CompiledRoute, pathSegments: string[]): Record<string, string> | undefined {
  const { segments, prefix } = candidate;
  if (prefix ? pathSegments.length <= segments.length : pathSegments.length !== segments.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < segments.length; i++) {
    const expected = segments[i] as string;
    const actual = pathSegments[i] as string;
    if (expected.startsWith(':')) {
      if (actual === '') return undefined;
      const decoded = safeDecode(actual);
      if (decoded === undefined) return undefined;
      params[expected.slice(1)] = decoded;
    } else if (expected !== actual) {
      return undefined;
    }
  }
  if (prefix && pathSegments.slice(segments.length).join('/') === '') return undefined;
  return params;
}

function safeDecode(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

/**
 * The caller of a route's request, apart from route.ts: the /v1 proxy (in the audited core,
 * SECURITY.md) needs this check and only the route table's types (docs/decisions.md §43).
 */
import type { Principal } from '../core/principal.js';
import type { RequestContext } from './route.js';

/**
 * callerOf returns the principal of a request on a route that needs a token. The front door sets
 * it before any such handler runs, so its absence is a programming error, never a default.
 */
export function callerOf(context: RequestContext): Principal {
  if (context.principal === undefined) throw new Error('callerOf: a handler of a public route asked for the caller');
  return context.principal;
}

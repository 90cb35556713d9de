/**
 * Variant A's AP2 routes (shared/spec/ap2-mandates.md, docs/ap2.md): GET /ap2/jwks, the public
 * keys of the trusted surface that signs open mandates. Each validates its wire shape and calls
 * one operation.
 */
import type { MandateJwks } from '../ap2/mandate-jwks.js';
import type { RouteHandler } from '../http/route.js';
import { validateQuery } from '../validate/schema.js';

/** What A's AP2 routes call. */
export interface Ap2Operations {
  /** The mandate JWKS: the current key first, then retired keys whose mandates may not have expired. */
  jwks(): MandateJwks;
}

/** The handlers of A's AP2 routes. */
export interface Ap2Handlers {
  jwks: RouteHandler;
}

/** ap2Handlers returns A's handlers of the AP2 routes. */
export function ap2Handlers(operations: Ap2Operations): Ap2Handlers {
  return {
    jwks: (request) => {
      validateQuery(request.query, {});
      return { status: 200, body: operations.jwks() };
    },
  };
}

import type { OperationContext } from '../core/core-deps.js';
import { readIdempotencyKey } from '../http/idempotency-key.js';
import type { RequestContext } from '../http/route.js';

/** operationContext is what the core needs to know about the local request, on either variant. */
export function operationContext(request: RequestContext): OperationContext {
  return {
    caller: { requestId: request.requestId, userAgent: request.userAgent },
    idempotencyKey: readIdempotencyKey(request.headers),
    signal: request.signal,
  };
}

/** ok is a 200 JSON answer (every successful local call is 200). */
export const ok = (body: unknown) => ({ status: 200, body });

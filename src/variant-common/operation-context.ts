import type { AuthorizationResult, CreatedAuthorization } from '../core/authorizations.js';
import type { OperationContext } from '../core/core-deps.js';
import { readIdempotencyKey } from '../http/idempotency-key.js';
import { callerOf } from '../http/caller-of.js';
import type { RequestContext } from '../http/route.js';
import { pendingAnswer, preferWaitSeconds } from './approval-shape.js';

/** operationContext is what the core needs to know about the local request, on either variant. */
export function operationContext(request: RequestContext): OperationContext {
  return {
    principal: callerOf(request),
    caller: { requestId: request.requestId, userAgent: request.userAgent },
    idempotencyKey: readIdempotencyKey(request.headers),
    signal: request.signal,
    waitSignal: request.holdSignal ?? request.signal,
    approvalWaitSeconds: preferWaitSeconds(request.headers),
    ownerPresent: request.ownerPresent,
    ...(request.presenceCredentialId !== undefined && { presenceCredentialId: request.presenceCredentialId }),
  };
}

/** ok is a 200 JSON answer (every successful local call is 200). */
export const ok = (body: unknown) => ({ status: 200, body });

/**
 * authorizationAnswer maps an authorization result to an answer with one variant's shape. Every
 * outcome is a case here, so a new one (a pending approval) cannot be answered as a creation.
 */
export function authorizationAnswer(result: AuthorizationResult, created: (created: CreatedAuthorization) => unknown) {
  switch (result.outcome) {
    case 'created':
      return ok(created(result));
    case 'approval_pending':
      // 202 Accepted: the owner has been asked; nothing is signed until they approve.
      return pendingAnswer(result.approval, Math.floor(Date.now() / 1000));
  }
}

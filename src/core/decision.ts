/**
 * The decision step of an authorization: whether the daemon may sign what a caller asked for.
 * Today every request is allowed; the spending policy will answer allow, ask (a pending approval
 * the owner decides) or deny, and the result types of requestAuthorization already leave room
 * for that.
 */
import type { AuthorizationRequest } from './authorization-request.js';
import type { OperationContext } from './operation-context.js';

/** What the decision step answers. Only `allow` exists until the spending policy arrives. */
export type AuthorizationDecision = { decision: 'allow' };

/** A decision step: it sees the exact request and who asked, and signs nothing. */
export type DecideAuthorization = (request: AuthorizationRequest, context: OperationContext) => AuthorizationDecision | Promise<AuthorizationDecision>;

/** allowEverything is the decision when no policy is configured: every request is allowed. */
export const allowEverything: DecideAuthorization = () => ({ decision: 'allow' });

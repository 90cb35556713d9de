import type { Authorization, PendingApproval } from './types.js';

/**
 * isPendingApproval tells the 202 answer of /authorize, /merchant-bind and /recurring (the owner
 * has been asked; docs/decisions.md §15.4) from an authorization.
 *
 * @example
 *   const result = await latch.authorize(input);
 *   if (isPendingApproval(result)) console.log(`waiting for the owner: ${result.approval_id}`);
 */
export function isPendingApproval(result: Authorization | PendingApproval | unknown): result is PendingApproval {
  if (typeof result !== 'object' || result === null) return false;
  const record = result as Record<string, unknown>;
  return record['status'] === 'pending_approval' && typeof record['approval_id'] === 'string';
}

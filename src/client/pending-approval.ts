import type { Authorization, PendingApproval } from './types.js';

/**
 * isPendingApproval tells the 202 answer of /authorize, /merchant-bind and /recurring (the owner
 * has been asked; docs/decisions.md §15.4) from an authorization.
 *
 * @example
 *   import { isPendingApproval, LatchClient } from 'latch';
 *   const latch = new LatchClient();
 *   const result = await latch.authorize({ card_id: 'card_…', amount: '12.50', merchant_name: 'shop.example.com' });
 *   if (isPendingApproval(result)) console.log(`waiting for the owner: ${result.approval_id}`);
 *   else console.log(result.authorization_id);
 *   latch.close();
 */
export function isPendingApproval(result: Authorization | PendingApproval | unknown): result is PendingApproval {
  if (typeof result !== 'object' || result === null) return false;
  const record = result as Record<string, unknown>;
  return record['status'] === 'pending_approval' && typeof record['approval_id'] === 'string';
}

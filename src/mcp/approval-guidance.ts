/**
 * What an agent is told about an approval (docs/decisions.md §15.4): the owner's policy asked the owner,
 * so the agent waits for a decision instead of trying other terms. Like policy-guidance.ts, these
 * words are not the protection (the daemon signs nothing without the owner); they keep a
 * well-meaning agent from making the owner decide a second, split or re-routed request.
 */
import { LatchClientError } from '../client/client-errors.js';
import type { Approval } from '../client/types.js';

/** The sentence every approval text repeats: a retry with other terms is a new request. */
const NO_OTHER_TERMS =
  'Do not retry with other terms to get around it: not another merchant, not a smaller or split amount, not a longer TTL and not another card; each would be another request the owner must decide.';

/** isApproval tells an approval object from any other tool result. */
export function isApproval(result: unknown): result is Approval {
  if (typeof result !== 'object' || result === null) return false;
  const record = result as Record<string, unknown>;
  return typeof record['approval_id'] === 'string' && typeof record['status'] === 'string' && typeof record['request'] === 'object';
}

/** terms is the request in a few words: amount, currency, merchant. */
function terms(approval: Approval): string {
  const request = approval.request;
  return `${request.amount ?? '?'} ${request.currency ?? ''} at ${request.merchant_name ?? '?'}`.replace(/\s+/g, ' ');
}

/**
 * approvalSummary returns the lines a successful tool result puts before its JSON when the result
 * is an approval that is pending or approved; any other result gets none.
 */
export function approvalSummary(result: unknown): string[] {
  if (!isApproval(result)) return [];
  const id = result.approval_id;
  const checkBack = `Check back with latch_get_approval {"approval_id": "${id}"}; give wait_seconds (up to 60) to hold on for the decision.`;
  if (result.status === 'pending_approval') {
    return [
      `The owner has been asked to approve this request (${terms(result)}): approval ${id}, open until ${result.expires_at}. This is not an error, and nothing is signed yet.`,
      NO_OTHER_TERMS,
      checkBack,
      'Tell the user that the owner must approve this payment.',
    ];
  }
  if (result.status === 'approved' && result.authorization) {
    const authorization = result.authorization;
    return [`The owner approved ${id}: authorization ${authorization.policy_id} for ${terms(result)} is active until ${authorization.expires_at}. Use it; do not ask again.`];
  }
  return [];
}

/**
 * approvalRefusal returns the tool error for an approval that ended without an authorization
 * (denied, expired or failed), or undefined while it is pending or once approved. A denial carries
 * the owner's reason; the codes are the daemon's own (approval_denied, or the cloud's code).
 */
export function approvalRefusal(approval: Approval): LatchClientError | undefined {
  const id = approval.approval_id;
  // The same fields as the daemon's approval_denied error object (issue 30 item 5).
  const why = { ...(approval.rule !== null && { rule: approval.rule }), reasons: approval.reasons };
  switch (approval.status) {
    case 'denied': {
      const reason = typeof approval.reason === 'string' && approval.reason !== '' ? `, saying ${JSON.stringify(approval.reason)}` : ' without a reason';
      return new LatchClientError({ code: 'approval_denied', status: 403, ...why, reason: approval.reason ?? null, message: `The owner denied approval ${id} (${terms(approval)})${reason}; nothing was signed.` });
    }
    case 'expired':
      return new LatchClientError({ code: 'approval_denied', status: 403, ...why, reason: null, message: `The owner did not decide on approval ${id} (${terms(approval)}) in time: it expired, and nothing was signed.` });
    case 'failed': {
      const code = typeof approval.error?.code === 'string' ? approval.error.code : 'upstream_unavailable';
      const detail = typeof approval.error?.message === 'string' ? `: ${approval.error.message}` : '';
      return new LatchClientError({ code, status: null, message: `The owner approved ${id} (${terms(approval)}), but it could not be created${detail}` });
    }
    default:
      return undefined;
  }
}

/** approvalDeniedGuidance is what a tool error with approval_denied adds: do not retry, tell the user. */
export function approvalDeniedGuidance(): string[] {
  return [NO_OTHER_TERMS, 'Tell the user that the owner did not approve this payment, with their reason if they gave one.'];
}

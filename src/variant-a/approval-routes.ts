/**
 * Variant A's approval routes (docs/decisions.md §15.4): the list and one approval (the owner sees all,
 * an agent its own), and the owner's decisions, approve and deny (agents get 403
 * agent_not_permitted at the front door: the routes are 'owner').
 */
import type { ApprovalOperations } from '../operations/approval-operations.js';
import type { RouteHandler } from '../http/route.js';
import { APPROVAL_ID_PATTERN } from '../ids/wire-ids.js';
import { LatchError } from '../errors/latch-error.js';
import { int, oneOf, str, validateBody, validateQuery } from '../validate/schema.js';
import { approvalWire } from '../variant-common/approval-shape.js';
import { ok, operationContext } from '../variant-common/operation-context.js';
import { APPROVAL_STATUSES } from '../core/approval.js';

const listRules = {
  limit: int({ min: 1, max: 100, default: 20 }),
  starting_after: str({ pattern: APPROVAL_ID_PATTERN, describe: 'an approval id like ap_…' }),
  status: oneOf(APPROVAL_STATUSES),
};

// The passphrase is bounded like the stored one may be (1024 characters, some multi-byte). It goes
// from the body to the verifier and nowhere else: no code logs request bodies (the request line
// has method, route, status and ids), and the logger redacts any field named like a passphrase.
// It is not registered with logger.addSecret, because that set is bounded and every wrong guess
// would push an older secret (the daemon token) out of it (test/e2e/approvals-kill.test.ts).
const approveRules = { passphrase: str({ maxLength: 4096 }) };
const denyRules = { reason: str({ maxLength: 200 }) };

/** The handlers of the four approval routes. */
export interface ApprovalHandlers {
  list: RouteHandler;
  get: RouteHandler;
  approve: RouteHandler;
  deny: RouteHandler;
}

/** approvalHandlers maps the approval routes to the core's approval operations. */
export function approvalHandlers(operations: ApprovalOperations): ApprovalHandlers {
  return {
    list: async (request) => {
      const query = validateQuery(request.query, listRules);
      const page = await operations.listApprovals({ limit: query.limit, startingAfter: query.starting_after, status: query.status }, operationContext(request));
      return ok({ approvals: page.approvals.map(approvalWire), has_more: page.hasMore });
    },
    get: async (request) => {
      validateQuery(request.query, {});
      return ok(approvalWire(await operations.getApproval(approvalIdParam(request.params['approval_id']), operationContext(request))));
    },
    approve: async (request) => {
      validateQuery(request.query, {});
      const input = validateBody(request.body ?? {}, approveRules);
      return ok(approvalWire(await operations.approve(approvalIdParam(request.params['approval_id']), input.passphrase, operationContext(request))));
    },
    deny: async (request) => {
      validateQuery(request.query, {});
      const input = validateBody(request.body ?? {}, denyRules);
      return ok(approvalWire(await operations.deny(approvalIdParam(request.params['approval_id']), input.reason, operationContext(request))));
    },
  };
}

/** A malformed id in the path is a missing approval, like an unknown one. */
function approvalIdParam(value: string | undefined): string {
  const text = value ?? '';
  if (!APPROVAL_ID_PATTERN.test(text)) throw new LatchError('approval_not_found');
  return text;
}

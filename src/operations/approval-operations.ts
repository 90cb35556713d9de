/**
 * The approval operations bound to one daemon's dependencies, for the route tables and the MCP
 * tools. Each takes values and the operation context, and knows no HTTP.
 */
import type { Approval, ApprovalStatus } from '../core/approval.js';
import type { ApprovalPage } from '../core/approval-book.js';
import { approveApproval, denyApproval, getApproval, listApprovals } from '../core/approvals.js';
import { signApprovedRequest } from '../core/authorizations.js';
import type { CoreDeps, OperationContext } from '../core/core-deps.js';

export interface ApprovalOperations {
  listApprovals(query: { status?: ApprovalStatus; limit: number; startingAfter?: string }, context: OperationContext): Promise<ApprovalPage>;
  /** getApproval honours context.approvalWaitSeconds: it holds on for the decision. */
  getApproval(id: string, context: OperationContext): Promise<Approval>;
  approve(id: string, passphrase: string | undefined, context: OperationContext): Promise<Approval>;
  deny(id: string, reason: string | undefined, context: OperationContext): Promise<Approval>;
}

/** approvalOperations binds the approval operations to deps. */
export function approvalOperations(deps: CoreDeps): ApprovalOperations {
  const signApproved = (request: Parameters<typeof signApprovedRequest>[1], context: OperationContext, approvalId: string) => signApprovedRequest(deps, request, context, approvalId);
  const answered = (approval: Approval) => withMandates(deps, approval);
  return {
    listApprovals: async (query, context) => {
      const page = await listApprovals(deps, query, context);
      return { ...page, approvals: page.approvals.map(answered) };
    },
    getApproval: async (id, context) => answered(await getApproval(deps, id, context)),
    approve: async (id, passphrase, context) => answered(await approveApproval(deps, signApproved, id, passphrase, context)),
    deny: (id, reason, context) => denyApproval(deps, id, reason, context),
  };
}

/** withMandates adds an approved AP2 mandate request's open mandates, so the approval answers with them (docs/ap2.md). */
function withMandates(deps: CoreDeps, approval: Approval): Approval {
  if (approval.status !== 'approved' || approval.request.kind !== 'ap2_mandate' || approval.authorization === null) return approval;
  const mandates = deps.authorizations.get(approval.authorization.policyId)?.evidence?.mandates;
  return mandates === undefined ? approval : { ...approval, mandates };
}

/**
 * The approval operations bound to one daemon's dependencies, for the route tables and the MCP
 * tools. Each takes values and the operation context, and knows no HTTP.
 */
import type { Approval, ApprovalStatus } from './approval.js';
import type { ApprovalPage } from './approval-book.js';
import { approveApproval, denyApproval, getApproval, listApprovals } from './approvals.js';
import { signApprovedRequest } from './authorizations.js';
import type { CoreDeps, OperationContext } from './core-deps.js';

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
  return {
    listApprovals: (query, context) => listApprovals(deps, query, context),
    getApproval: (id, context) => getApproval(deps, id, context),
    approve: (id, passphrase, context) => approveApproval(deps, signApproved, id, passphrase, context),
    deny: (id, reason, context) => denyApproval(deps, id, reason, context),
  };
}

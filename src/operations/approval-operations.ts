/**
 * The approval operations bound to one daemon's dependencies, for the route tables and the MCP
 * tools. Each takes values and the operation context, and knows no HTTP. Deciding is the core's
 * (core/approvals.ts: the book's claim, the passphrase, the signature, the audit line); reading and
 * listing are here, and write nothing but an expiry whose time is up (the core's refreshExpiry).
 */
import { LatchError } from '../errors/latch-error.js';
import type { Approval, ApprovalStatus } from '../core/approval.js';
import { approveApproval, awaitAsAsked, denyApproval, refreshExpiry, visibleTo } from '../core/approvals.js';
import { signApprovedRequest } from '../core/authorizations.js';
import type { CoreDeps, OperationContext } from '../core/core-deps.js';
import { NOTED_REFUSALS, notingRefusals, termsOf, type RefusedTerms } from './refusal-notes.js';

/** A page of approvals, newest first. */
export interface ApprovalPage {
  approvals: Approval[];
  hasMore: boolean;
}

/** What a listing asks for. */
export interface ApprovalQuery {
  status?: ApprovalStatus;
  limit: number;
  startingAfter?: string;
}

export interface ApprovalOperations {
  listApprovals(query: ApprovalQuery, context: OperationContext): Promise<ApprovalPage>;
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
    approve: async (id, passphrase, context) => answered(await approveNotingRefusals(deps, id, context, () => approveApproval(deps, signApproved, id, passphrase, context))),
    deny: (id, reason, context) => denyApproval(deps, id, reason, context),
  };
}

/**
 * approveNotingRefusals approves, noting what the lockout refused (too many wrong passphrases)
 * and an approval the local policy or the brake made fail when it was signed (issue 44 item 3).
 */
async function approveNotingRefusals(deps: CoreDeps, id: string, context: OperationContext, approve: () => Promise<Approval>): Promise<Approval> {
  const asked = deps.approvals.book.get(id);
  const terms: RefusedTerms = asked === undefined ? { operation: 'approve', cardId: null, merchant: null, amountMinor: null, currency: null, kind: null, approvalId: id } : { ...termsOf(asked.request, 'approve'), approvalId: id };
  const decided = await notingRefusals(deps, terms, context, approve);
  if (decided.status === 'failed' && decided.error !== null && NOTED_REFUSALS.has(decided.error.code)) {
    deps.refused({ ...terms, code: decided.error.code, rule: null, reasons: [decided.error.message], principal: decided.principal, caller: context.caller });
  }
  return decided;
}

/** withMandates adds an approved AP2 mandate request's open mandates, so the approval answers with them (docs/ap2.md). */
function withMandates(deps: CoreDeps, approval: Approval): Approval {
  if (approval.status !== 'approved' || approval.request.kind !== 'ap2_mandate' || approval.authorization === null) return approval;
  const mandates = deps.authorizations.get(approval.authorization.policyId)?.evidence?.mandates;
  return mandates === undefined ? approval : { ...approval, mandates };
}

/** getApproval returns one approval: the owner sees all, an agent only its own (another's is not found). */
export async function getApproval(deps: CoreDeps, id: string, context: OperationContext): Promise<Approval> {
  const found = deps.approvals.book.get(id);
  if (found === undefined || !visibleTo(found, context)) throw new LatchError('approval_not_found');
  return awaitAsAsked(deps, await refreshExpiry(deps, deps.approvals, found), context);
}

/** listApprovals lists approvals newest first, after startingAfter when given: the owner's all, an agent's only its own. */
export async function listApprovals(deps: CoreDeps, query: ApprovalQuery, context: OperationContext): Promise<ApprovalPage> {
  for (const pending of deps.approvals.book.pending()) await refreshExpiry(deps, deps.approvals, pending);
  const all = deps.approvals.book.newestFirst();
  let start = 0;
  if (query.startingAfter !== undefined) {
    const at = all.findIndex((approval) => approval.id === query.startingAfter);
    start = at === -1 ? all.length : at + 1;
  }
  const approvals: Approval[] = [];
  for (const approval of all.slice(start)) {
    if (!visibleTo(approval, context)) continue;
    if (query.status !== undefined && approval.status !== query.status) continue;
    if (approvals.length === query.limit) return { approvals, hasMore: true };
    approvals.push(approval);
  }
  return { approvals, hasMore: false };
}

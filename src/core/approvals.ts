/**
 * Human approval the agent cannot give itself (docs/decisions.md §15.4). A decision of `ask` becomes a
 * durable pending approval holding the exact request; the owner approves or denies it once; an
 * approval signs exactly the stored request through the same pipeline, with the decision step
 * satisfied by the approval (budgets still reserve). An undecided approval expires.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { isErrorCode } from '../errors/error-rules.js';
import { LatchError } from '../errors/latch-error.js';
import { randomId } from '../ids/random-id.js';
import { APPROVAL_TTL_SECONDS_DEFAULT, requestSha256, type Approval } from './approval.js';
import type { ApprovalDeps } from './approval-deps.js';
import type { AuthorizationRequest } from './authorization-request.js';
import type { CoreDeps, OperationContext } from './core-deps.js';
import type { AuthorizationDecision } from './decision.js';
import { OWNER, principalName } from './principal.js';
import type { SignedWindow } from './window-payload.js';
import type { Authorization } from './model.js';

/** The longest a caller may hold on for a decision (RFC 7240 `Prefer: wait`): 60 seconds. */
export const APPROVAL_WAIT_SECONDS_MAX = 60;

/** What signing an approved request gives back: the registered authorization and its window. */
export type SignApproved = (request: AuthorizationRequest, context: OperationContext, approvalId: string) => Promise<{ authorization: Authorization; window: SignedWindow | null }>;

/** fingerprintSha256 is how an approval remembers the POST that created it. */
export function fingerprintSha256(fingerprint: string): string {
  return bytesToHex(sha256(new TextEncoder().encode(fingerprint)));
}

/**
 * earlierApproval returns the approval a retry of the same POST (same caller, Idempotency-Key
 * and body) created; the same key with another body is idempotency_key_reused.
 */
export async function earlierApproval(deps: CoreDeps, context: OperationContext, fingerprint: string): Promise<Approval | undefined> {
  if (context.idempotencyKey === undefined) return undefined;
  const found = deps.approvals.book.findByCallerKey(context.principal, context.idempotencyKey);
  if (found === undefined) return undefined;
  if (found.fingerprintSha256 !== fingerprintSha256(fingerprint)) throw new LatchError('idempotency_key_reused');
  return refreshExpiry(deps, deps.approvals, found);
}

/**
 * createApproval keeps a new pending approval durably (state journal, then the audit line) and
 * notifies the owner; a concurrent POST with the same key gets the same approval.
 */
export async function createApproval(
  deps: CoreDeps,
  approvals: ApprovalDeps,
  request: AuthorizationRequest,
  context: OperationContext,
  decision: Extract<AuthorizationDecision, { decision: 'ask' }>,
  fingerprint: string,
): Promise<Approval> {
  const nowSeconds = deps.nowSeconds();
  const candidate: Approval = {
    id: randomId('ap'),
    status: 'pending_approval',
    principal: context.principal,
    request: { ...request },
    rule: decision.rule,
    reasons: [...decision.reasons],
    createdAtSeconds: nowSeconds,
    expiresAtSeconds: nowSeconds + (decision.approvalTtlSeconds ?? APPROVAL_TTL_SECONDS_DEFAULT),
    decidedAtSeconds: null,
    reason: null,
    authorization: null,
    window: null,
    error: null,
    requestSha256: requestSha256(request),
    idempotencyKey: context.idempotencyKey ?? randomId('idem'),
    callerKey: context.idempotencyKey !== undefined,
    fingerprintSha256: fingerprintSha256(fingerprint),
  };
  refuseOverPendingCap(approvals, candidate, nowSeconds);
  const kept = await approvals.book.add(candidate);
  if (kept !== candidate) {
    if (kept.fingerprintSha256 !== candidate.fingerprintSha256) throw new LatchError('idempotency_key_reused');
    return kept;
  }
  await approvals.audit({ operation: 'approval_requested', approval: kept, caller: context.caller, principal: context.principal });
  approvals.notify(kept);
  return kept;
}

/**
 * refuseOverPendingCap refuses a new approval when its caller already has as many pending ones
 * as the owner allows (docs/decisions.md §17.6), so one agent cannot flood the owner's queue. It
 * runs in the same synchronous step as the book's insertion, so concurrent asks cannot overshoot.
 * A retry of an approval that exists is not a new one and always gets it.
 */
function refuseOverPendingCap(approvals: ApprovalDeps, candidate: Approval, nowSeconds: number): void {
  if (candidate.callerKey && approvals.book.findByCallerKey(candidate.principal, candidate.idempotencyKey) !== undefined) return;
  const caller = principalName(candidate.principal);
  const max = approvals.pendingMaxPerCaller();
  let pending = 0;
  for (const approval of approvals.book.pending()) {
    if (approval.expiresAtSeconds > nowSeconds && principalName(approval.principal) === caller) pending++;
  }
  if (pending >= max) {
    throw new LatchError('too_many_pending_approvals', { message: `${caller} already has ${pending} pending approvals, as many as the owner allows; wait for the owner to decide them.` });
  }
}

/**
 * awaitDecision holds on up to waitSeconds (at most 60) for the owner's decision, and returns
 * the approval as it then is. It never outlasts the approval's expiry.
 */
export async function awaitDecision(deps: CoreDeps, approval: Approval, waitSeconds: number, signal?: AbortSignal): Promise<Approval> {
  const approvals = deps.approvals;
  const deadlineMs = Date.now() + Math.min(Math.max(0, waitSeconds), APPROVAL_WAIT_SECONDS_MAX) * 1000;
  let current = await refreshExpiry(deps, approvals, approval);
  while (current.status === 'pending_approval' && signal?.aborted !== true) {
    const leftMs = deadlineMs - Date.now();
    if (leftMs <= 0) break;
    const untilExpiryMs = (current.expiresAtSeconds - deps.nowSeconds()) * 1000;
    await approvals.book.waitForChange(current.id, Math.max(0, Math.min(leftMs, untilExpiryMs + 1)), signal);
    current = await refreshExpiry(deps, approvals, approvals.book.get(current.id) ?? current);
  }
  return current;
}

/** awaitAsAsked holds on for the decision as long as the caller's `Prefer: wait` asks (none: the approval at once). */
export async function awaitAsAsked(deps: CoreDeps, approval: Approval, context: OperationContext): Promise<Approval> {
  const wait = context.approvalWaitSeconds ?? 0;
  return wait > 0 && approval.status === 'pending_approval' ? awaitDecision(deps, approval, wait, context.waitSignal ?? context.signal) : approval;
}

/**
 * refreshExpiry marks a pending approval expired once its time is up (durably, with its audit
 * line), unless a decision on it is under way.
 */
export async function refreshExpiry(deps: CoreDeps, approvals: ApprovalDeps, approval: Approval): Promise<Approval> {
  const nowSeconds = deps.nowSeconds();
  if (approval.status !== 'pending_approval' || nowSeconds < approval.expiresAtSeconds) return approval;
  if (!approvals.book.claim(approval.id)) return approval;
  try {
    const current = approvals.book.get(approval.id) ?? approval;
    if (current.status !== 'pending_approval') return current;
    const expired: Approval = { ...current, status: 'expired', decidedAtSeconds: nowSeconds };
    await approvals.book.update(expired);
    await approvals.audit({ operation: 'approval_expired', approval: expired, caller: undefined, principal: OWNER });
    return expired;
  } finally {
    approvals.book.release(approval.id);
  }
}

/**
 * denyApproval records the owner's denial, once: a decided approval, or one whose approval is
 * under way, is approval_not_pending.
 */
export async function denyApproval(deps: CoreDeps, id: string, reason: string | undefined, context: OperationContext): Promise<Approval> {
  const approvals = deps.approvals;
  const found = await decidable(deps, approvals, id);
  if (!approvals.book.claim(id)) throw notPending();
  try {
    const current = approvals.book.get(id) ?? found;
    if (current.status !== 'pending_approval') throw notPending();
    const denied: Approval = { ...current, status: 'denied', decidedAtSeconds: deps.nowSeconds(), reason: reason ?? null };
    await approvals.book.update(denied);
    await approvals.audit({ operation: 'approval_denied', approval: denied, caller: context.caller, principal: context.principal });
    return denied;
  } finally {
    approvals.book.release(id);
  }
}

/**
 * approveApproval checks the owner's presence (the passphrase and its lockout), then signs exactly the stored request
 * as the agent that asked, under the approval's Idempotency-Key, and registers it. The cloud's
 * definite refusal makes the approval `failed`; a timeout or an unreachable cloud leaves it
 * pending, so approving again re-sends the same window and the cloud replays its answer.
 */
export async function approveApproval(deps: CoreDeps, signApproved: SignApproved, id: string, passphrase: string | undefined, context: OperationContext): Promise<Approval> {
  const approvals = deps.approvals;
  await decidable(deps, approvals, id);
  // The front door proved presence (a session, or this passphrase) when it says so; otherwise the
  // one passphrase check runs here (docs/decisions.md §21).
  if (context.ownerPresent !== true) {
    const checked: unknown = await approvals.checkPassphrase(passphrase);
    // Only a check that says what it found lets the approval through (a binding that answered
    // anything else, e.g. false instead of throwing, must not approve).
    if (checked !== 'right' && checked !== 'not_set') throw new LatchError('invalid_passphrase');
  }
  if (!approvals.book.claim(id)) throw notPending();
  try {
    const current = approvals.book.get(id);
    if (current === undefined || current.status !== 'pending_approval') throw notPending();
    const signingContext: OperationContext = { principal: current.principal, caller: context.caller, idempotencyKey: current.idempotencyKey };
    let decided: Approval;
    try {
      const created = await signApproved(current.request, signingContext, current.id);
      decided = { ...current, status: 'approved', decidedAtSeconds: deps.nowSeconds(), authorization: created.authorization, window: created.window };
    } catch (error) {
      if (!definiteRefusal(error)) {
        await auditNotApplied(approvals, current, context, error);
        throw error;
      }
      // The reasons' numbers go with it (issue 44 item 4): "78.00 of 100.00 used; 24.00 would exceed it".
      const reasons = error.reasons !== undefined && error.reasons.length > 0 ? ` ${error.reasons.join('; ')}.` : '';
      decided = { ...current, status: 'failed', decidedAtSeconds: deps.nowSeconds(), error: { code: error.code, message: `${error.message}${reasons}` } };
    }
    await approvals.book.update(decided);
    // The line says what happened, once it has: approved (with the authorization's policy_id), or
    // approved but refused by the cloud (docs/decisions.md §20).
    await approvals.audit({
      operation: decided.status === 'approved' ? 'approval_approved' : 'approval_failed',
      approval: decided,
      caller: context.caller,
      principal: context.principal,
      ...(decided.error !== null && { code: decided.error.code }),
      ...(context.presenceCredentialId !== undefined && { presenceCredentialId: context.presenceCredentialId }),
    });
    return decided;
  } finally {
    approvals.book.release(id);
  }
}

/**
 * auditNotApplied records an approval that was given but not applied (paused, not enrolled, the
 * cloud unreachable): the approval stays pending, and the line names the error, so the log never
 * shows an approval as approved that was not. The signing error is the caller's answer either way;
 * a failure to write this line is reported by the audit log's own appender.
 */
async function auditNotApplied(approvals: ApprovalDeps, approval: Approval, context: OperationContext, error: unknown): Promise<void> {
  const code = error instanceof LatchError ? error.code : 'internal_error';
  try {
    await approvals.audit({ operation: 'approval_not_applied', approval, caller: context.caller, principal: context.principal, code });
  } catch {
    // See above: the caller gets the signing error, which is what happened to the approval.
  }
}

/**
 * outcomeError is what a retry of the original POST, or a held answer, gets for a decided
 * approval that created nothing: the owner's denial, the expiry, or the cloud's refusal.
 */
export function outcomeError(approval: Approval): LatchError {
  // The rule that asked and its reasons, as the 202 carried them, so the agent can tell the user (issue 30 item 5).
  const why = { rule: approval.rule, reasons: approval.reasons };
  switch (approval.status) {
    case 'denied':
      return new LatchError('approval_denied', {
        ...why,
        reason: approval.reason,
        message: `The owner denied this request (approval ${approval.id})${approval.reason === null ? ' without a reason' : `, saying ${JSON.stringify(approval.reason)}`}; nothing was signed.`,
      });
    case 'expired':
      return new LatchError('approval_denied', { ...why, reason: null, message: `The owner did not decide on this request in time (approval ${approval.id} expired); nothing was signed.` });
    case 'failed': {
      const code = approval.error?.code ?? 'internal_error';
      return isErrorCode(code) ? new LatchError(code, { message: approval.error?.message ?? '' }) : new LatchError('internal_error');
    }
    default:
      throw new Error(`outcomeError: approval ${approval.status} has an outcome`);
  }
}

async function decidable(deps: CoreDeps, approvals: ApprovalDeps, id: string): Promise<Approval> {
  const found = approvals.book.get(id);
  if (found === undefined) throw new LatchError('approval_not_found');
  const current = await refreshExpiry(deps, approvals, found);
  if (current.status !== 'pending_approval') throw notPending();
  return current;
}

function notPending(): LatchError {
  return new LatchError('approval_not_pending');
}

/** visibleTo reports whether the caller may see an approval: the owner all, an agent only its own. */
export function visibleTo(approval: Approval, context: OperationContext): boolean {
  return context.principal.kind === 'owner' || principalName(approval.principal) === principalName(context.principal);
}

/**
 * A definite refusal: the cloud (or the policy, or a rule of the request) answered that this
 * request will not be authorized. A paused daemon, a missing enrollment or any 5xx is not one:
 * the approval stays pending, to be approved again later.
 */
function definiteRefusal(error: unknown): error is LatchError {
  if (!(error instanceof LatchError)) return false;
  if (error.code === 'daemon_paused' || error.code === 'device_not_enrolled') return false;
  return error.status < 500;
}

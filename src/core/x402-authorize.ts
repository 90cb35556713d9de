/**
 * An x402 payment through the one pipeline (shared/spec/x402.md §2, docs/x402.md): an
 * authorization of kind `x402`, with no card and no window. Its steps are the pipeline's own
 * (core/sign-window.ts), in the same order, with the same parts:
 *
 * 1. the brake: a paused daemon decides, records and signs nothing;
 * 2. a retry: the approval or the entry this caller's Idempotency-Key made is answered again;
 * 3. the decision: the spending policy (deps.decide: rules, budgets, velocity, new_merchant for
 *    the pair host + payTo), an `ask` kept as a pending approval (core/approvals.ts);
 * 4. the record: the ledger entry, durable in state.journal with its receipt in one record — the
 *    budgets' reservation — and signed only once recorded (the signer checks the ledger itself);
 * 5. the audit line `x402_authorized`, on disk before the answer.
 *
 * Anything that fails after the record marks the entry `failed`, which gives its reservation back.
 */
import { LatchError } from '../errors/latch-error.js';
import { randomId } from '../ids/random-id.js';
import { requirementsSha256 } from './x402-terms.js';
import type { Approval } from './approval.js';
import { canonicalJson, requestSha256 } from './approval.js';
import type { AuthorizationEntry } from './authorization-ledger.js';
import type { X402Request } from './authorization-request.js';
import { awaitAsAsked, createApproval, earlierApproval, fingerprintSha256, outcomeError } from './approvals.js';
import type { CoreDeps, EnrolledDevice, OperationContext } from './core-deps.js';
import type { AuthorizationDecision } from './decision.js';
import type { Authorization } from './model.js';
import { principalName } from './principal.js';
import { refuseWhilePaused } from './signing-pause.js';
import { x402Request, type X402Input } from './x402-request.js';
import type { X402Deps, X402Result } from './x402-deps.js';

/** How long after maxTimeoutSeconds an unbound authorization waits for its payload (spec §2: + 60 s). */
export const X402_BIND_GRACE_SECONDS = 60;

export type { X402Result } from './x402-deps.js';

/** requestX402Authorization runs an x402 payment through the pipeline; see the file's comment. */
export async function requestX402Authorization(deps: CoreDeps, input: X402Input, context: OperationContext): Promise<X402Result> {
  refuseWhilePaused(deps.paused);
  const guard = deps.x402;
  const request = x402Request(input, guard.assets());
  const fingerprint = x402Fingerprint(request);
  // A retry of a POST that needed approval gets that approval, or its outcome, never a second one.
  const earlier = await earlierApproval(deps, context, fingerprint);
  if (earlier !== undefined) return approvalResult(deps, earlier, context);
  if (context.idempotencyKey === undefined) return authorizeOnce(deps, guard, request, context, fingerprint);
  // One attempt per caller key at a time: a concurrent retry shares it, a later one finds its entry.
  const scope = idempotencyScope(context);
  const running = guard.running.get(`${scope}\u0000${context.idempotencyKey}`);
  if (running !== undefined) return sameRequest(await running, fingerprint);
  const made = guard.index.idOf(scope, context.idempotencyKey);
  if (made !== undefined) return replay(deps, made, fingerprint);
  const attempt = authorizeOnce(deps, guard, request, context, fingerprint);
  const slot = `${scope}\u0000${context.idempotencyKey}`;
  const shared = attempt.then((result) => ({ result, fingerprint }));
  // A concurrent retry awaits it and gets its error; without one, the error is this caller's alone.
  shared.catch(() => undefined);
  guard.running.set(slot, shared);
  try {
    return await attempt;
  } finally {
    guard.running.delete(slot);
  }
}

/**
 * signApprovedX402 records and signs exactly the stored request the owner approved (the decision
 * step told of the approval, so an `ask` is satisfied and budgets still reserve), and answers as
 * an approved approval keeps it: the entry's id in an authorization view, and no window.
 */
export async function signApprovedX402(deps: CoreDeps, request: X402Request, context: OperationContext, approvalId: string): Promise<{ authorization: Authorization; window: null }> {
  refuseWhilePaused(deps.paused);
  const guard = deps.x402;
  const result = await decideAndRecord(deps, guard, request, context, x402Fingerprint(request), approvalId);
  if (result.outcome !== 'authorized') throw new Error('signApprovedX402: the decision step asked again for an approved request');
  return { authorization: x402AuthorizationView(result.entry), window: null };
}

async function authorizeOnce(deps: CoreDeps, guard: X402Deps, request: X402Request, context: OperationContext, fingerprint: string): Promise<X402Result> {
  const result = await decideAndRecord(deps, guard, request, context, fingerprint);
  if (result.outcome === 'ask') return approvalResult(deps, await createApproval(deps, deps.approvals, request, context, result.decision, fingerprint), context);
  return result;
}

type Decided = { outcome: 'authorized'; entry: AuthorizationEntry } | { outcome: 'ask'; decision: Extract<AuthorizationDecision, { decision: 'ask' }> };

/** decideAndRecord is steps 3–5: the decision, the record with its receipt, the audit line. */
async function decideAndRecord(deps: CoreDeps, guard: X402Deps, request: X402Request, context: OperationContext, fingerprint: string, approvalId?: string): Promise<Decided> {
  const device = deps.device();
  const id = randomId('xa');
  const nowSeconds = deps.nowSeconds();
  const decision = await deps.decide(request, context, { policyId: id, nowSeconds, ...(approvalId !== undefined && { approvalId }) });
  switch (decision.decision) {
    case 'deny':
      throw new LatchError('policy_denied', { rule: decision.rule, reasons: decision.reasons, message: `The spending policy refuses this payment (rule ${decision.rule}).` });
    case 'ask':
      if (approvalId !== undefined) throw new Error('decideAndRecord: the decision step asked again for an approved request');
      return { outcome: 'ask', decision };
    case 'allow':
      break;
  }
  const entry = x402Entry(deps, device, request, context, decision, id, nowSeconds, fingerprint, approvalId);
  // The signer reads the entry it signs for from the ledger itself: recorded, authorized, its terms.
  await deps.authorizations.recordSigned(entry, () => deps.signer.x402Receipt(device.key.keyId, id));
  try {
    await guard.audit({ operation: 'x402_authorized', entry: deps.authorizations.get(id) ?? entry, context });
  } catch (error) {
    // Not audited, so never answered: the reservation is given back.
    await deps.authorizations.noteStatus(id, 'failed');
    throw error;
  }
  const recorded = deps.authorizations.get(id);
  if (recorded === undefined) throw new Error('decideAndRecord: the recorded entry is gone');
  return { outcome: 'authorized', entry: recorded };
}

/** x402Entry is the ledger entry of an allowed x402 request: active, authorized, counted in full. */
function x402Entry(
  deps: CoreDeps,
  device: EnrolledDevice,
  request: X402Request,
  context: OperationContext,
  decision: Extract<AuthorizationDecision, { decision: 'allow' }>,
  id: string,
  nowSeconds: number,
  fingerprint: string,
  approvalId: string | undefined,
): AuthorizationEntry {
  const { requirements } = request.x402;
  const basis = decision.basis;
  const approval = approvalId === undefined ? undefined : deps.approvals.book.get(approvalId);
  return {
    policyId: id,
    agent: principalName(context.principal),
    cardId: null,
    merchant: request.merchant,
    currency: request.currency,
    amountMinor: request.amountMinor,
    kind: 'x402',
    authorizationType: requirements.scheme === 'upto' ? 'ceiling' : 'exact',
    signedAtSeconds: nowSeconds,
    notAfterSeconds: nowSeconds + requirements.maxTimeoutSeconds + X402_BIND_GRACE_SECONDS,
    state: 'active',
    usedMinor: null,
    x402: {
      state: 'authorized',
      requirements,
      requirementsSha256: requirementsSha256(requirements),
      resource: request.x402.resource,
      reference: request.reference ?? null,
      symbol: request.x402.symbol,
      decimals: request.x402.decimals,
      requestSha256: requestSha256(request),
      receivedAtSeconds: approval?.createdAtSeconds ?? nowSeconds,
      decision: basis === undefined ? { decision: 'allow', rule: null, reasons: [], policySha256: null } : { decision: basis.decision, rule: basis.rule, reasons: basis.reasons, policySha256: basis.policySha256 },
      approvalId: approvalId ?? null,
      keyId: device.key.keyId,
      idempotency: context.idempotencyKey === undefined ? null : { scope: idempotencyScope(context), key: context.idempotencyKey, fingerprintSha256: fingerprintSha256(fingerprint) },
      payloadSha256: null,
      boundAtSeconds: null,
      report: null,
      reportedAtSeconds: null,
      settledMinor: null,
      endedAtSeconds: null,
    },
  };
}

/** replay answers a retry under the same Idempotency-Key with the entry it made (a different request is idempotency_key_reused). */
function replay(deps: CoreDeps, id: string, fingerprint: string): X402Result {
  const entry = deps.authorizations.get(id);
  if (entry?.x402 === undefined || entry.state === 'failed') throw new LatchError('authorization_not_found');
  if (entry.x402.idempotency?.fingerprintSha256 !== fingerprintSha256(fingerprint)) throw new LatchError('idempotency_key_reused');
  return { outcome: 'authorized', entry };
}

function sameRequest(shared: { result: X402Result; fingerprint: string }, fingerprint: string): X402Result {
  if (shared.fingerprint !== fingerprint) throw new LatchError('idempotency_key_reused');
  return shared.result;
}

/**
 * approvalResult answers for an approval: held up to the caller's `Prefer: wait`, then the entry
 * the approval created, the pending approval, or the error of a decision that created nothing.
 */
async function approvalResult(deps: CoreDeps, approval: Approval, context: OperationContext): Promise<X402Result> {
  const current = await awaitAsAsked(deps, approval, context);
  switch (current.status) {
    case 'pending_approval':
      return { outcome: 'approval_pending', approval: current };
    case 'approved': {
      const entry = current.authorization === null ? undefined : deps.authorizations.get(current.authorization.policyId);
      if (entry?.x402 === undefined) throw new Error('approvalResult: an approved x402 approval without its entry');
      return { outcome: 'authorized', entry };
    }
    default:
      throw outcomeError(current);
  }
}

/** x402Fingerprint is how a retry is told from another request under the same key. */
function x402Fingerprint(request: X402Request): string {
  return `x402_authorized\n${canonicalJson(request)}`;
}

/** idempotencyScope is whose Idempotency-Keys an entry is filed under: the caller's. */
function idempotencyScope(context: OperationContext): string {
  return principalName(context.principal);
}

/**
 * x402AuthorizationView is an x402 entry in the shape an approved approval keeps (the
 * authorization it created): its id, terms and times. It is never sent to the cloud.
 */
export function x402AuthorizationView(entry: AuthorizationEntry): Authorization {
  return {
    policyId: entry.policyId,
    cardId: null,
    merchant: entry.merchant,
    amountMinor: entry.amountMinor,
    currency: entry.currency,
    authorizationType: entry.authorizationType,
    // An approval's authorization names a window kind; an x402 entry is shown by its own wire (docs/x402.md).
    kind: 'one_time',
    notBefore: entry.signedAtSeconds,
    expiresAt: entry.notAfterSeconds,
    status: 'active',
    createdAt: entry.signedAtSeconds,
    transactionId: null,
    recurring: null,
  };
}

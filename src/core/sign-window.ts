/**
 * The one pipeline of every window signature that can move money (docs/decisions.md §28.5):
 * /authorize, /merchant-bind, /recurring and B's /authorize, an approved request, and the owner's
 * signing primitives all pass here, parameterized by purpose:
 *
 * 1. the brake: a paused daemon decides, records and signs nothing;
 * 2. the decision: the spending policy, told what the purpose is (an approval, the owner present);
 * 3. the record: the authorization ledger's entry, durable before the window goes anywhere (for a
 *    policy, the durable form of the budget reservation);
 * 4. the signature: the signer signs only the ledger's active entry (src/signer/window.ts); a
 *    window to register is signed as its entry is recorded, the two written as one record
 *    (docs/decisions.md §28.10);
 * 5. what the purpose does with it: a window to register keeps its JWS on the entry (the caller
 *    registers it, its audit line written with the request that carries it, §16.3; for an AP2
 *    mandate request the mandate key signs the open mandates only once the cloud registered it,
 *    core/ap2-mandates.ts, §32, §35); a window to hold is audited now and held for the /v1 proxy
 *    to forward once (§21).
 *
 * Outcomes are values: `signed`, or `approval_required` for a policy's `ask`. A denial is the
 * caller's error (`policy_denied`); anything that fails after the record marks the entry `failed`,
 * which gives its reservation back.
 */
import type { WindowRequest } from './authorization-request.js';
import type { CoreDeps, EnrolledDevice, OperationContext } from './core-deps.js';
import type { AuthorizationDecision, DecisionFacts, DecisionRequest } from './decision.js';
import type { DecisionRecord } from './decision-record.js';
import { requestSha256 } from './approval.js';
import { principalName } from './principal.js';
import { refuseWhilePaused } from './signing-pause.js';
import { buildWindowPayload, type PolicyWindowPayload, type SignedWindow, type WindowTerms } from './window-payload.js';
import { refuseUnsignableMandates } from './ap2-mandates.js';
import { LatchError } from '../errors/latch-error.js';

/** What a window is signed for. */
export type WindowPurpose =
  /** A request to register with the cloud now (an agent's or the owner's; `approvalId` once approved). */
  | { kind: 'register'; request: WindowRequest; approvalId?: string }
  /** A signing primitive's window: held for the /v1 proxy, the owner present (the route required it). */
  | { kind: 'hold'; decided: DecisionRequest; operation: string };

/** A policy's `ask`. */
export type AskDecision = Extract<AuthorizationDecision, { decision: 'ask' }>;

/** What the pipeline answers. */
export type WindowSigning = { outcome: 'signed'; window: SignedWindow } | { outcome: 'approval_required'; decision: AskDecision };

/** signDecidedWindow runs terms through the pipeline for purpose; see the file's comment. */
export async function signDecidedWindow(deps: CoreDeps, device: EnrolledDevice, purpose: WindowPurpose, terms: WindowTerms, signedAt: number, context: OperationContext): Promise<WindowSigning> {
  // Before anything is decided or recorded: a paused daemon reserves nothing and leaves no trace.
  refuseWhilePaused(deps.paused);
  // A daemon that cannot sign AP2 mandates refuses one before anything is decided or reserved.
  if (purpose.kind === 'register') refuseUnsignableMandates(deps, purpose.request);
  const nowSeconds = deps.nowSeconds();
  const payload = buildWindowPayload(terms, device.deviceId, signedAt);
  const decision = await deps.decide(decidedRequest(purpose), context, decisionFacts(purpose, payload.policy_id, nowSeconds));
  switch (decision.decision) {
    case 'deny':
      throw denial(purpose, decision.rule, decision.reasons);
    case 'ask':
      // An approved request, or the present owner, asked again means the decision step ignored it: a bug.
      if (purpose.kind === 'hold' || purpose.approvalId !== undefined) throw new Error(`signDecidedWindow: the decision step asked again for a ${purpose.kind === 'hold' ? 'present owner' : 'approved request'}`);
      return { outcome: 'approval_required', decision };
    case 'allow':
      break;
  }
  const entry = activeEntry(payload.policy_id, terms, context, nowSeconds);
  const evidence = purpose.kind === 'register' ? decisionRecord(deps, purpose, payload, device.key.keyId, decision, nowSeconds) : undefined;
  const sign = () => deps.signer.window(device.key.keyId, payload);
  // A window to register keeps its JWS for the evidence pack, which hands it out and never signs
  // the window again: the entry and that JWS are one durable record (§28.10). A window to hold
  // keeps none: its entry is durable first and the window signed after, as it always was.
  const kept = purpose.kind === 'register' ? await deps.authorizations.recordSigned(evidence !== undefined ? { ...entry, evidence } : entry, sign) : undefined;
  if (purpose.kind === 'hold') await deps.authorizations.record(entry);
  try {
    // Durable before it is signed, a held window's entry may have been cancelled meanwhile: checked in the signing turn (§42).
    if (kept === undefined && deps.authorizations.get(payload.policy_id)?.state !== 'active') throw new LatchError('authorization_not_active', { message: 'The window was cancelled while it was being signed; nothing was signed.' });
    const jws = kept ?? sign();
    const window: SignedWindow = { payload, jws, keyId: device.key.keyId };
    if (purpose.kind === 'hold') {
      await auditHeld(deps, window, terms, purpose.operation, context);
      await deps.heldWindows.hold(payload.policy_id, jws, terms.cardId === null ? '/v1/policy-windows' : '/v1/authorizations', terms.notAfter);
    }
    return { outcome: 'signed', window };
  } catch (error) {
    // Not signed, not audited or not held: the reservation is given back and nothing is answered.
    await deps.authorizations.noteStatus(payload.policy_id, 'failed');
    throw error;
  }
}

function decidedRequest(purpose: WindowPurpose): DecisionRequest {
  return purpose.kind === 'register' ? purpose.request : purpose.decided;
}

function decisionFacts(purpose: WindowPurpose, policyId: string, nowSeconds: number): DecisionFacts {
  if (purpose.kind === 'hold') return { policyId, nowSeconds, ownerPresent: true };
  return { policyId, nowSeconds, ...(purpose.approvalId !== undefined && { approvalId: purpose.approvalId }) };
}

function denial(purpose: WindowPurpose, rule: string, reasons: string[]): LatchError {
  if (purpose.kind === 'hold') return new LatchError('policy_denied', { rule, message: `The spending policy refuses this window (rule ${rule}); change the policy first.` });
  return new LatchError('policy_denied', { rule, reasons, message: `The spending policy refuses this request (rule ${rule}).` });
}

/** auditHeld writes a held window's audit line: it leaves in the primitive's answer, so before it. */
async function auditHeld(deps: CoreDeps, window: SignedWindow, terms: WindowTerms, operation: string, context: OperationContext): Promise<void> {
  await deps.audit({
    operation,
    policyId: window.payload.policy_id,
    cardId: terms.cardId,
    merchant: terms.merchant,
    amountMinor: terms.amountMinor,
    currency: terms.currency,
    keyId: window.keyId,
    caller: context.caller,
    principal: context.principal,
    ...(terms.reference !== undefined && { reference: terms.reference }),
  });
}

/**
 * decisionRecord is what the evidence pack needs of this authorization, kept with its ledger
 * entry (docs/decisions.md §22). An approved request was received when its approval was created.
 */
function decisionRecord(
  deps: CoreDeps,
  purpose: Extract<WindowPurpose, { kind: 'register' }>,
  payload: PolicyWindowPayload,
  keyId: string,
  decision: Extract<AuthorizationDecision, { decision: 'allow' }>,
  nowSeconds: number,
): DecisionRecord {
  const { request, approvalId } = purpose;
  const basis = decision.basis;
  const approval = approvalId === undefined ? undefined : deps.approvals.book.get(approvalId);
  return {
    request: { ...request },
    requestSha256: requestSha256(request),
    receivedAtSeconds: approval?.createdAtSeconds ?? nowSeconds,
    window: payload,
    keyId,
    decision: basis === undefined ? { decision: 'allow', rule: null, reasons: [], policySha256: null } : { decision: basis.decision, rule: basis.rule, reasons: basis.reasons, policySha256: basis.policySha256 },
    approvalId: approvalId ?? null,
  };
}

/** activeEntry is the ledger entry of a window about to be signed: active, nothing used yet. */
function activeEntry(policyId: string, terms: WindowTerms, context: OperationContext, nowSeconds: number) {
  return {
    policyId,
    agent: principalName(context.principal),
    cardId: terms.cardId,
    merchant: terms.merchant,
    currency: terms.currency,
    amountMinor: terms.amountMinor,
    kind: terms.kind,
    authorizationType: terms.authorizationType,
    signedAtSeconds: nowSeconds,
    notAfterSeconds: terms.notAfter,
    state: 'active' as const,
    usedMinor: null,
    ...(terms.recurring !== undefined && { schedule: terms.recurring }),
  };
}

/**
 * Scoped authorizations: one pipeline for every kind. /authorize, /merchant-bind and /recurring
 * on A, and B's /authorize, build an AuthorizationRequest and call requestAuthorization, whose
 * steps are explicit: check the request, idempotency, decision, sign and audit, register.
 */
import { AUDIT_OPERATION, accountWindowTerms, checkRequest, windowTerms, type AccountWindowRequest, type Ap2MandateRequest, type AuthorizationRequest, type OneTimeRequest } from './authorization-request.js';
import { cloudCall, idempotencyKeyOf, type CoreDeps, type EnrolledDevice, type OperationContext, type SignatureAudit } from './core-deps.js';
import { currencyDecimals, parseAmountText } from '../money/amount.js';
import { WindowNotRecorded } from './signature-audit.js';
import type { AuthorizationDecision, DecisionRequest } from './decision.js';
import { LatchError } from '../errors/latch-error.js';
import { isoSeconds } from '../time/iso-time.js';
import type { Authorization } from './model.js';
import type { Approval } from './approval.js';
import { awaitDecision, createApproval, earlierApproval, outcomeError } from './approvals.js';
import { refuseWhilePaused } from './signing-pause.js';
import { principalName } from './principal.js';
import { requestFingerprint } from './signed-window-cache.js';
import { buildWindowPayload, signPayload, type PolicyWindowPayload, type SignedWindow, type WindowTerms } from './window-payload.js';
import { requestSha256 } from './approval.js';
import type { Ap2MandateRecord, DecisionRecord } from './decision-record.js';
import { mandateAuditFields, signMandates } from './ap2-mandates.js';

export type { SignedWindow } from './window-payload.js';
export { RECURRING_DEFAULT_SECONDS } from './authorization-request.js';

/**
 * What requestAuthorization answers: a created authorization, or, for a policy decision of
 * `ask`, the pending approval that holds the request, signed by nobody. Callers switch on
 * `outcome` so that a case cannot be ignored silently.
 */
export type AuthorizationResult = ({ outcome: 'created' } & CreatedAuthorization) | { outcome: 'approval_pending'; approval: Approval };

/** A registered authorization together with the window that was signed for it. */
export interface CreatedAuthorization {
  authorization: Authorization;
  window: SignedWindow;
}

/**
 * requestAuthorization runs one authorization request through its steps:
 *
 * 1. check: the request's business rules (a recurring schedule's bounds);
 * 2. idempotency: with a caller's Idempotency-Key, a retry of the same request gets the window
 *    signed the first time, so the cloud sees the same body under the same key and replays its
 *    first answer (docs/decisions.md §9), and the steps below do not run again for it;
 * 3. decision: whether this caller may have this request signed (the spending policy: allow,
 *    ask — kept as a pending approval for the owner, nothing signed — or deny: policy_denied);
 * 4. record and sign: the authorization ledger holds the entry durably, and the device key signs
 *    the window;
 * 5. register: the window is submitted to the cloud in a request signed by the same resolved key;
 *    one audit line records both signatures and is on disk before the request leaves.
 */
export async function requestAuthorization(deps: CoreDeps, request: AuthorizationRequest, context: OperationContext): Promise<AuthorizationResult> {
  checkRequest(request, windowNow(deps));
  const device = deps.device();
  const operation = AUDIT_OPERATION[request.kind];
  const fingerprint = requestFingerprint(operation, request);
  // A retry of a POST that needed approval gets that approval, or its outcome, never a second one.
  const earlier = await earlierApproval(deps, context, fingerprint);
  if (earlier !== undefined) return approvalResult(deps, earlier, context);
  // Twice at most: a remembered window that was rolled back is forgotten, and the request is
  // decided afresh, as if it were new (docs/decisions.md §17.1).
  for (let attempt = 0; ; attempt++) {
    try {
      const signed = await signIdempotently(deps, device, operation, request, context, () => decideAndSign(deps, device, request, operation, context));
      const authorization = await register(deps, device, signed, operation, context, requestSha256(request));
      return { outcome: 'created', authorization, window: signed };
    } catch (error) {
      if (error instanceof WindowRolledBack && attempt === 0) {
        forgetWindow(deps, device, context, error.policyId);
        continue;
      }
      if (!(error instanceof ApprovalRequired)) throw error;
      return approvalResult(deps, await createApproval(deps, deps.approvals, request, context, error.decision, fingerprint), context);
    }
  }
}

/**
 * signApprovedRequest signs and registers exactly a stored request the owner approved: the same
 * steps as requestAuthorization, with the decision step told of the approval (so an `ask` is
 * satisfied and budgets still reserve). The window's time starts now, at approval, so the request's
 * business rules are checked again now: a schedule that has started or ended while the owner
 * decided is refused, not signed.
 */
export async function signApprovedRequest(deps: CoreDeps, request: AuthorizationRequest, context: OperationContext, approvalId: string): Promise<CreatedAuthorization> {
  checkRequest(request, windowNow(deps));
  const device = deps.device();
  const operation = AUDIT_OPERATION[request.kind];
  for (let attempt = 0; ; attempt++) {
    try {
      const signed = await signIdempotently(deps, device, operation, request, context, () => decideAndSign(deps, device, request, operation, context, approvalId), approvalId);
      const authorization = await register(deps, device, signed, operation, context, requestSha256(request));
      return { authorization, window: signed };
    } catch (error) {
      if (!(error instanceof WindowRolledBack) || attempt > 0) throw error;
      forgetWindow(deps, device, context, error.policyId);
    }
  }
}

/**
 * approvalResult answers for an approval: held up to the caller's `Prefer: wait`, then the
 * created authorization, the pending approval, or the error of a decision that created nothing.
 */
async function approvalResult(deps: CoreDeps, approval: Approval, context: OperationContext): Promise<AuthorizationResult> {
  const wait = context.approvalWaitSeconds ?? 0;
  const current = wait > 0 && approval.status === 'pending_approval' ? await awaitDecision(deps, approval, wait, context.waitSignal ?? context.signal) : approval;
  switch (current.status) {
    case 'pending_approval':
      return { outcome: 'approval_pending', approval: current };
    case 'approved':
      if (current.authorization === null || current.window === null) throw new Error('approvalResult: an approved approval without its authorization');
      return { outcome: 'created', authorization: current.authorization, window: current.window };
    default:
      throw outcomeError(current);
  }
}

/**
 * Thrown when a remembered window turns out to have been rolled back (never registered, and now
 * never to be sent): the caller forgets it and decides the request afresh.
 */
class WindowRolledBack extends Error {
  constructor(readonly policyId: string) {
    super('window rolled back');
  }
}

/** forgetWindow drops a rolled-back window from the signed-window cache. */
function forgetWindow(deps: CoreDeps, device: EnrolledDevice, context: OperationContext, policyId: string): void {
  if (context.idempotencyKey !== undefined) deps.signedWindows?.forget(windowScope(device, context), context.idempotencyKey, policyId);
}

/** Thrown inside the idempotent step for a decision of `ask`, so nothing is remembered as signed. */
class ApprovalRequired extends Error {
  constructor(readonly decision: Extract<AuthorizationDecision, { decision: 'ask' }>) {
    super('approval required');
  }
}

/**
 * decideAndSign builds the window, asks the decision step about it, and only on `allow` records
 * it in the authorization ledger (durable before it is signed, so also before anything could
 * register it; for a policy, this entry is the durable form of the budget reservation), then
 * signs it (its audit line is written with the request that registers it). A signature that
 * fails is recorded as `failed`, which cancels the reservation. A denial signs nothing, records
 * nothing and reaches no cloud.
 */
async function decideAndSign(deps: CoreDeps, device: EnrolledDevice, request: AuthorizationRequest, operation: string, context: OperationContext, approvalId?: string): Promise<SignedWindow> {
  // Before anything is decided or recorded: a paused daemon reserves nothing and leaves no trace.
  refuseWhilePaused(deps.paused);
  // An AP2 mandate names the card's label: read before anything is decided or reserved.
  const mandateCard = request.kind === 'ap2_mandate' ? await mandateCardOf(deps, request, context) : undefined;
  const nowSeconds = deps.nowSeconds();
  const signedAt = windowNow(deps);
  const terms = windowTerms(request, signedAt);
  const payload = buildWindowPayload(terms, device.deviceId, signedAt);
  const decision = await deps.decide(request, context, { policyId: payload.policy_id, nowSeconds, ...(approvalId !== undefined && { approvalId }) });
  switch (decision.decision) {
    case 'deny':
      throw new LatchError('policy_denied', { rule: decision.rule, reasons: decision.reasons, message: `The spending policy refuses this request (rule ${decision.rule}).` });
    case 'ask':
      // An approved request asked again means the decision step ignored the approval: a bug.
      if (approvalId !== undefined) throw new Error('decideAndSign: the decision step asked again for an approved request');
      throw new ApprovalRequired(decision);
    case 'allow':
      break;
  }
  const entry = activeEntry(payload.policy_id, terms, context, nowSeconds);
  const evidence = decisionRecord(deps, request, payload, device.key.keyId, decision, nowSeconds, approvalId);
  // The open mandates ride in the same ledger entry as the card window that backs them; they are
  // answered only once that entry is durable and their audit line written (docs/ap2.md).
  const mandates = mandateCard === undefined ? undefined : await signMandatesOrFail(deps, entry, evidence, mandateCard, terms.notBefore, terms.notAfter);
  await deps.authorizations.record({ ...entry, evidence: { ...evidence, ...(mandates !== undefined && { mandates }) } });
  try {
    if (mandates !== undefined && mandateCard !== undefined) await deps.audit(mandateAudit(mandateCard.request, mandates, payload, evidence.requestSha256, context));
    // Audited with the request that carries it to the cloud, in one line (see register).
    return { payload, jws: signPayload(payload, device.key), keyId: device.key.keyId };
  } catch (error) {
    await deps.authorizations.noteStatus(payload.policy_id, 'failed');
    throw error;
  }
}

/** An AP2 mandate request with its card's label, read before the decision. */
interface MandateCard {
  request: Ap2MandateRequest;
  label: string | undefined;
}

async function mandateCardOf(deps: CoreDeps, request: Ap2MandateRequest, context: OperationContext): Promise<MandateCard> {
  if (deps.mandates === undefined) throw new LatchError('data_directory_unavailable', { message: 'This daemon signs no AP2 mandates (no mandate key is bound); nothing was signed.' });
  return { request, label: await deps.mandates.cardLabel(request.cardId, context) };
}

/**
 * signMandatesOrFail signs the open mandates of an allowed request; should signing fail, the entry
 * is recorded as `failed`, which gives back the reservation the decision made.
 */
async function signMandatesOrFail(deps: CoreDeps, entry: ReturnType<typeof activeEntry>, evidence: DecisionRecord, card: MandateCard, iat: number, exp: number): Promise<Ap2MandateRecord> {
  try {
    return signMandates(deps, card.request, card.label, iat, exp);
  } catch (error) {
    await deps.authorizations.record({ ...entry, state: 'failed', evidence });
    throw error;
  }
}

/** mandateAudit is the `ap2_mandate_signed` line: each SD-JWT by its hash, the agent key's thumbprint, the mandate kid, the caller. */
function mandateAudit(request: Ap2MandateRequest, mandates: Ap2MandateRecord, payload: PolicyWindowPayload, requestSha: string, context: OperationContext): SignatureAudit {
  return {
    operation: 'ap2_mandate_signed',
    policyId: payload.policy_id,
    cardId: request.cardId,
    merchant: request.merchant,
    amountMinor: request.amountMinor,
    currency: request.currency,
    keyId: mandates.keyId,
    caller: context.caller,
    principal: context.principal,
    requestSha256: requestSha,
    mandate: mandateAuditFields(request, mandates),
  };
}

/**
 * decisionRecord is what the evidence pack needs of this authorization, kept with its ledger
 * entry (docs/decisions.md §22). An approved request was received when its approval was created.
 */
function decisionRecord(deps: CoreDeps, request: AuthorizationRequest, payload: PolicyWindowPayload, keyId: string, decision: Extract<AuthorizationDecision, { decision: 'allow' }>, nowSeconds: number, approvalId: string | undefined): DecisionRecord {
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

/**
 * windowAudit is the audit record of a window, written in one line with the signature of the
 * request that sends it (docs/decisions.md §16.3): each time the window leaves the device, so a
 * window replayed under an Idempotency-Key is recorded again as it goes out. It is read from the
 * signed payload itself, the one thing a replay and a first signing share.
 */
function windowAudit(operation: string, signed: SignedWindow, context: OperationContext, requestSha: string): SignatureAudit {
  const { payload } = signed;
  return {
    operation,
    policyId: payload.policy_id,
    cardId: payload.card_id ?? null,
    merchant: payload.merchant,
    amountMinor: parseAmountText(payload.amount, { param: 'amount', allowZero: true, decimals: currencyDecimals(payload.currency) ?? 2 }),
    currency: payload.currency,
    keyId: signed.keyId,
    caller: context.caller,
    principal: context.principal,
    requestSha256: requestSha,
    ...(payload.reference !== undefined && { reference: payload.reference }),
  };
}

/**
 * register submits the window to the cloud, its signature recorded in the audit line of the
 * request's (written before the request leaves). A definite refusal (a 4xx answer) means the cloud
 * holds no authorization for it, so the ledger entry becomes `failed`; a timeout or an
 * unavailable cloud leaves it active, since the cloud may hold it after all.
 */
async function register(deps: CoreDeps, device: EnrolledDevice, signed: SignedWindow, operation: string, context: OperationContext, requestSha: string): Promise<Authorization> {
  const policyId = signed.payload.policy_id;
  // In the same turn as the ledger is asked: a rolled-back window is never sent, and one on its
  // way is never rolled back (docs/decisions.md §17.1).
  if (deps.authorizations !== undefined && !deps.authorizations.beginRegistration(policyId)) throw new WindowRolledBack(policyId);
  try {
    return await registerOnce(deps, device, signed, operation, context, requestSha);
  } finally {
    deps.authorizations.endRegistration(policyId);
  }
}

async function registerOnce(deps: CoreDeps, device: EnrolledDevice, signed: SignedWindow, operation: string, context: OperationContext, requestSha: string): Promise<Authorization> {
  const policyId = signed.payload.policy_id;
  try {
    // Without the caller's signal: a client that hangs up must not leave a window half-done, so
    // the registration finishes (within the cloud client's own deadline) either way (§17.1).
    const { signal: _callerSignal, ...finishing } = context;
    const call = { ...cloudCall(device, finishing, idempotencyKeyOf(context)), window: windowAudit(operation, signed, context, requestSha) };
    const authorization = await device.cloud.registerAuthorization(signed.jws, call);
    deps.outcome?.({ policyId, outcome: 'registered', code: null, principal: context.principal });
    return authorization;
  } catch (error) {
    if (error instanceof WindowNotRecorded) {
      // Nothing left the device: the reservation is given back, the window is never sent (a
      // retry decides afresh, docs/decisions.md §17.1), and the write's error answered.
      await deps.authorizations.noteStatus(policyId, 'unregistered');
      throw error.cause;
    }
    const refused = error instanceof LatchError && error.status < 500;
    if (refused) await deps.authorizations.noteStatus(policyId, 'failed');
    // A refusal is final; a timeout or an unavailable cloud leaves the outcome unknown.
    deps.outcome?.({ policyId, outcome: refused ? 'refused' : 'unknown', code: error instanceof LatchError ? error.code : null, principal: context.principal });
    throw clockMoved(deps, signed.payload, error) ?? error;
  }
}

/** How far ahead of the cloud's clock a one-time window may start (the cloud's leeway, docs/cloud.md). */
const NOT_BEFORE_LEEWAY_SECONDS = 300;

/**
 * clockMoved turns the cloud's refusal of a window's times into clock_skew naming both clocks, when
 * the cloud's clock has moved since the window was signed (a sandbox clock advance, a laptop waking
 * from sleep). The caller never sends not_before or not_after, so a field error about them would
 * name a field it cannot fix. It is judged by the window's own times against the cloud's clock as
 * the refusal's Date header taught it, never by the refusal's words; the next window is signed in
 * the cloud's new time (docs/decisions.md §18.4).
 */
function clockMoved(deps: CoreDeps, payload: PolicyWindowPayload, error: unknown): LatchError | undefined {
  if (!(error instanceof LatchError) || error.code !== 'invalid_request') return undefined;
  if (error.param !== 'not_after' && error.param !== 'not_before') return undefined;
  const cloudNow = deps.cloudNowSeconds?.();
  if (cloudNow === undefined) return undefined;
  const over = payload.not_after <= cloudNow;
  const early = payload.kind !== 'recurring' && payload.not_before > cloudNow + NOT_BEFORE_LEEWAY_SECONDS;
  if (!over && !early) return undefined;
  return new LatchError('clock_skew', {
    message:
      `The cloud refused the window's times because its clock moved after the daemon last heard it: the cloud's clock reads ${isoSeconds(cloudNow)}, this device's ${isoSeconds(deps.nowSeconds())}. ` +
      'Nothing was authorized. The daemon now signs in the cloud\'s time: repeat the request, with a new Idempotency-Key if it had one.',
  });
}

/**
 * signPrimitive is the owner's signing primitives' pipeline (docs/decisions.md §21): nothing signs
 * around the ledger. The brake stops it; the policy decides (a deny is final, an `ask` is satisfied
 * by the owner's presence, which the route required); the window enters the authorization ledger
 * as the owner's before it is signed, so it counts toward every budget and velocity limit, is
 * listed and can be cancelled; its signature is audited; and the daemon holds it, unregistered,
 * for the /v1 proxy to forward exactly once. Nothing reaches the cloud here.
 */
async function signPrimitive(deps: CoreDeps, device: EnrolledDevice, terms: WindowTerms, decided: DecisionRequest, operation: string, context: OperationContext): Promise<SignedWindow> {
  refuseWhilePaused(deps.paused);
  const nowSeconds = deps.nowSeconds();
  const payload = buildWindowPayload(terms, device.deviceId, windowNow(deps));
  const decision = await deps.decide(decided, context, { policyId: payload.policy_id, nowSeconds, ownerPresent: true });
  if (decision.decision === 'deny') {
    throw new LatchError('policy_denied', { rule: decision.rule, message: `The spending policy refuses this window (rule ${decision.rule}); change the policy first.` });
  }
  if (decision.decision === 'ask') throw new Error('signPrimitive: the decision step asked although the owner is present');
  await deps.authorizations.record(activeEntry(payload.policy_id, terms, context, nowSeconds));
  try {
    const signed = await signBuilt(deps, device, payload, terms, operation, context);
    await deps.heldWindows?.hold(payload.policy_id, signed.jws, terms.cardId === null ? '/v1/policy-windows' : '/v1/authorizations', terms.notAfter);
    return signed;
  } catch (error) {
    // Not signed, not audited or not held: the reservation is given back and nothing is answered.
    await deps.authorizations.noteStatus(payload.policy_id, 'failed');
    throw error;
  }
}

async function signBuilt(deps: CoreDeps, device: EnrolledDevice, payload: PolicyWindowPayload, terms: WindowTerms, operation: string, context: OperationContext): Promise<SignedWindow> {
  const jws = signPayload(payload, device.key);
  await deps.audit({
    operation,
    policyId: payload.policy_id,
    cardId: terms.cardId,
    merchant: terms.merchant,
    amountMinor: terms.amountMinor,
    currency: terms.currency,
    keyId: device.key.keyId,
    caller: context.caller,
    principal: context.principal,
    ...(terms.reference !== undefined && { reference: terms.reference }),
  });
  return { payload, jws, keyId: device.key.keyId };
}

/**
 * signIdempotently signs once per caller and Idempotency-Key (docs/decisions.md §9). A window
 * remembered from an earlier request is decided again before it can be sent (§17.1): the brake
 * and the policy as they are now, against everything but the window's own reservation.
 */
async function signIdempotently(
  deps: CoreDeps,
  device: EnrolledDevice,
  operation: string,
  request: AuthorizationRequest,
  context: OperationContext,
  sign: () => Promise<SignedWindow>,
  approvalId?: string,
): Promise<SignedWindow> {
  const cache = deps.signedWindows;
  if (cache === undefined || context.idempotencyKey === undefined) return sign();
  let fresh = false;
  const signed = await cache.signOnce(windowScope(device, context), context.idempotencyKey, requestFingerprint(operation, request), deps.nowSeconds(), () => {
    fresh = true;
    return sign();
  });
  if (!fresh) await decideReplay(deps, request, signed, context, approvalId);
  return signed;
}

/**
 * windowScope is whose Idempotency-Keys a remembered window is filed under: this device key and
 * the caller, so that one caller's key never meets another's (docs/decisions.md §17.8).
 */
function windowScope(device: EnrolledDevice, context: OperationContext): string {
  return `${device.key.keyId}\u0000${principalName(context.principal)}`;
}

/** decideReplay passes a remembered window through the brake and the policy again, or throws. */
async function decideReplay(deps: CoreDeps, request: AuthorizationRequest, signed: SignedWindow, context: OperationContext, approvalId?: string): Promise<void> {
  refuseWhilePaused(deps.paused);
  const facts = { policyId: signed.payload.policy_id, nowSeconds: deps.nowSeconds(), replay: true as const, ...(approvalId !== undefined && { approvalId }) };
  const decision = await deps.decide(request, context, facts);
  switch (decision.decision) {
    case 'allow':
      return;
    case 'deny':
      throw new LatchError('policy_denied', { rule: decision.rule, message: `The spending policy refuses this request (rule ${decision.rule}); the window signed for it earlier is not sent.` });
    case 'ask':
      throw new LatchError('policy_denied', {
        rule: decision.rule,
        message: `The spending policy now needs the owner's approval for this request (rule ${decision.rule}); the window signed for it earlier is not sent. Ask again with a new Idempotency-Key.`,
      });
  }
}

/** signCardWindow signs what /authorize would for a one-time request, through the pipeline, and contacts nobody. */
export function signCardWindow(deps: CoreDeps, request: OneTimeRequest, context: OperationContext): Promise<SignedWindow> {
  checkRequest(request, windowNow(deps));
  return signPrimitive(deps, deps.device(), windowTerms(request, windowNow(deps)), request, 'sign_card_policy_window', context);
}

/** signAccountWindow signs an account-wide window (no card), through the pipeline, and contacts nobody. */
export function signAccountWindow(deps: CoreDeps, request: AccountWindowRequest, context: OperationContext): Promise<SignedWindow> {
  return signPrimitive(deps, deps.device(), accountWindowTerms(request, windowNow(deps)), { ...request, kind: 'one_time', cardId: null }, 'sign_policy_window', context);
}

/**
 * windowNow is the time a window is signed at: the cloud's, where the windows are judged, when the
 * daemon has heard it; the device's otherwise. Budgets and idempotency stay on the device's clock.
 */
function windowNow(deps: CoreDeps): number {
  return deps.cloudNowSeconds?.() ?? deps.nowSeconds();
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

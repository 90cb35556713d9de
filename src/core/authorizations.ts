/**
 * Scoped authorizations: one pipeline for every kind. /authorize, /merchant-bind and /recurring
 * on A, and B's /authorize, build an AuthorizationRequest and call requestAuthorization, whose
 * steps are explicit: check the request, idempotency, decision, sign and audit, register.
 */
import { AUDIT_OPERATION, accountWindowTerms, checkRequest, windowTerms, type AccountWindowRequest, type AuthorizationRequest, type OneTimeRequest, type WindowRequest } from './authorization-request.js';
import { cloudCall, idempotencyKeyOf, type CoreDeps, type EnrolledDevice, type OperationContext, type SignatureAudit } from './core-deps.js';
import { currencyDecimals, parseAmountText } from '../money/amount.js';
import { WindowNotRecorded } from './signature-audit.js';
import { LatchError } from '../errors/latch-error.js';
import { isoSeconds } from '../time/iso-time.js';
import type { Authorization } from './model.js';
import type { Approval } from './approval.js';
import { awaitAsAsked, createApproval, earlierApproval, outcomeError } from './approvals.js';
import { refuseWhilePaused } from './signing-pause.js';
import { principalName } from './principal.js';
import { requestFingerprint } from './signed-window-cache.js';
import type { PolicyWindowPayload, SignedWindow } from './window-payload.js';
import { requestSha256 } from './approval.js';
import { signDecidedWindow, type AskDecision, type WindowPurpose, type WindowSigning } from './sign-window.js';
import { signRegisteredMandates } from './ap2-mandates.js';
import { signApprovedX402 } from './x402-authorize.js';

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
export async function requestAuthorization(deps: CoreDeps, request: WindowRequest, context: OperationContext): Promise<AuthorizationResult> {
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
      const signed = await signIdempotently(deps, device, operation, request, context, () => signForRegistration(deps, device, request, context));
      const authorization = await registerForRequest(deps, device, signed, request, operation, context);
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
export async function signApprovedRequest(deps: CoreDeps, request: AuthorizationRequest, context: OperationContext, approvalId: string): Promise<CreatedAuthorization | { authorization: Authorization; window: null }> {
  // An x402 payment has no window: the same steps in core/x402-authorize.ts.
  if (request.kind === 'x402') return signApprovedX402(deps, request, context, approvalId);
  checkRequest(request, windowNow(deps));
  const device = deps.device();
  const operation = AUDIT_OPERATION[request.kind];
  for (let attempt = 0; ; attempt++) {
    try {
      const signed = await signIdempotently(deps, device, operation, request, context, () => signForRegistration(deps, device, request, context, approvalId), approvalId);
      const authorization = await registerForRequest(deps, device, signed, request, operation, context);
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
  const current = await awaitAsAsked(deps, approval, context);
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
  if (context.idempotencyKey !== undefined) deps.signedWindows.forget(windowScope(device, context), context.idempotencyKey, policyId);
}

/**
 * Thrown inside the idempotent step for the pipeline's `approval_required`, only so that the
 * signed-window cache (which shares one promise among concurrent retries) remembers nothing as
 * signed; requestAuthorization turns it back into its value at once.
 */
class ApprovalRequired extends Error {
  constructor(readonly decision: AskDecision) {
    super('approval required');
  }
}

/** signForRegistration runs a request through the one pipeline (sign-window.ts) to be registered. */
async function signForRegistration(deps: CoreDeps, device: EnrolledDevice, request: WindowRequest, context: OperationContext, approvalId?: string): Promise<SignedWindow> {
  const signedAt = windowNow(deps);
  const purpose: WindowPurpose = { kind: 'register', request, ...(approvalId !== undefined && { approvalId }) };
  const signing = await signDecidedWindow(deps, device, purpose, windowTerms(request, signedAt), signedAt, context);
  if (signing.outcome === 'approval_required') throw new ApprovalRequired(signing.decision);
  return signing.window;
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

/** registerForRequest registers a request's window; an AP2 request's mandates are signed only then (ap2 spec §6). */
async function registerForRequest(deps: CoreDeps, device: EnrolledDevice, signed: SignedWindow, request: AuthorizationRequest, operation: string, context: OperationContext): Promise<Authorization> {
  const authorization = await register(deps, device, signed, operation, context, requestSha256(request));
  if (request.kind === 'ap2_mandate') await signRegisteredMandates(deps, request, signed, context);
  return authorization;
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
    deps.outcome({ policyId, outcome: 'registered', code: null, principal: context.principal });
    return authorization;
  } catch (error) {
    if (error instanceof WindowNotRecorded) {
      // Nothing left the device: the reservation is given back, the window is never sent (a
      // retry decides afresh, docs/decisions.md §17.1), and the write's error answered.
      await deps.authorizations.noteStatus(policyId, 'unregistered');
      throw error.cause;
    }
    // The cloud's idempotency_key_in_use is a replay racing this window's first send: no refusal of it (§42).
    const refused = error instanceof LatchError && error.status < 500 && error.code !== 'idempotency_key_in_use';
    if (refused) await deps.authorizations.noteStatus(policyId, 'failed');
    // A refusal is final; a timeout or an unavailable cloud leaves the outcome unknown.
    deps.outcome({ policyId, outcome: refused ? 'refused' : 'unknown', code: error instanceof LatchError ? error.code : null, principal: context.principal });
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
  const cloudNow = deps.cloudNowSeconds();
  const over = payload.not_after <= cloudNow;
  const early = payload.kind !== 'recurring' && payload.not_before > cloudNow + NOT_BEFORE_LEEWAY_SECONDS;
  if (!over && !early) return undefined;
  return new LatchError('clock_skew', {
    message:
      `The cloud refused the window's times because its clock moved after the daemon last heard it: the cloud's clock reads ${isoSeconds(cloudNow)}, this device's ${isoSeconds(deps.nowSeconds())}. ` +
      'Nothing was authorized. The daemon signs in the cloud\'s time from now on, so the same request made again can succeed (with a new Idempotency-Key if it had one); if clock_skew comes back, set this device\'s clock right (latch doctor shows both clocks).',
  });
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
  request: WindowRequest,
  context: OperationContext,
  sign: () => Promise<SignedWindow>,
  approvalId?: string,
): Promise<SignedWindow> {
  const cache = deps.signedWindows;
  if (context.idempotencyKey === undefined) return sign();
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
async function decideReplay(deps: CoreDeps, request: WindowRequest, signed: SignedWindow, context: OperationContext, approvalId?: string): Promise<void> {
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

/**
 * signCardWindow signs what /authorize would for a one-time request, through the one pipeline as
 * a window to hold (docs/decisions.md §21): nothing signs around the ledger, and nobody is contacted.
 */
export async function signCardWindow(deps: CoreDeps, request: OneTimeRequest, context: OperationContext): Promise<SignedWindow> {
  const signedAt = windowNow(deps);
  checkRequest(request, signedAt);
  return held(await signDecidedWindow(deps, deps.device(), { kind: 'hold', decided: request, operation: 'sign_card_policy_window' }, windowTerms(request, signedAt), signedAt, context));
}

/** signAccountWindow signs an account-wide window (no card), through the one pipeline as a window to hold. */
export async function signAccountWindow(deps: CoreDeps, request: AccountWindowRequest, context: OperationContext): Promise<SignedWindow> {
  const signedAt = windowNow(deps);
  const decided = { ...request, kind: 'one_time' as const, cardId: null };
  return held(await signDecidedWindow(deps, deps.device(), { kind: 'hold', decided, operation: 'sign_policy_window' }, accountWindowTerms(request, signedAt), signedAt, context));
}

/** held is the window a primitive signed; the pipeline never asks while the owner is present. */
function held(signing: WindowSigning): SignedWindow {
  if (signing.outcome !== 'signed') throw new Error('a signing primitive was asked for an approval although the owner is present');
  return signing.window;
}

/**
 * windowNow is the time a window is signed at: the cloud's, where the windows are judged (the
 * device's until the daemon has heard it). Budgets and idempotency stay on the device's clock.
 */
function windowNow(deps: CoreDeps): number {
  return deps.cloudNowSeconds();
}

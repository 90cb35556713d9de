/**
 * Scoped authorizations: one pipeline for every kind. /authorize, /merchant-bind and /recurring
 * on A, and B's /authorize, build an AuthorizationRequest and call requestAuthorization, whose
 * steps are explicit: check the request, idempotency, decision, sign and audit, register.
 */
import { AUDIT_OPERATION, accountWindowTerms, checkRequest, windowTerms, type AccountWindowRequest, type AuthorizationRequest, type OneTimeRequest } from './authorization-request.js';
import { cloudCall, idempotencyKeyOf, type CoreDeps, type EnrolledDevice, type OperationContext } from './core-deps.js';
import { allowEverything, type AuthorizationDecision } from './decision.js';
import type { Authorization } from './model.js';
import { refuseWhilePaused } from './signing-pause.js';
import { requestFingerprint } from './signed-window-cache.js';
import { buildWindowPayload, signPayload, type SignedWindow, type WindowTerms } from './window-payload.js';

export type { SignedWindow } from './window-payload.js';
export { RECURRING_DEFAULT_SECONDS } from './authorization-request.js';

/**
 * What requestAuthorization answers. Today a request is always created; the spending policy will
 * add `{ outcome: 'pending_approval', approval }` for a decision of `ask`, and callers switch on
 * `outcome` so that the new case cannot be ignored silently.
 */
export type AuthorizationResult = { outcome: 'created' } & CreatedAuthorization;

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
 *    first answer (decisions §9), and the steps below do not run again for it;
 * 3. decision: whether this caller may have this request signed (today: always allowed);
 * 4. sign and audit: the device key signs the window, and the audit line is on disk before the
 *    signature goes anywhere;
 * 5. register: the window is submitted to the cloud, signed by the same resolved key.
 */
export async function requestAuthorization(deps: CoreDeps, request: AuthorizationRequest, context: OperationContext): Promise<AuthorizationResult> {
  checkRequest(request, deps.nowSeconds());
  const device = deps.device();
  const operation = AUDIT_OPERATION[request.kind];
  const signed = await signIdempotently(deps, device, operation, request, context, async () => {
    const decision: AuthorizationDecision = await (deps.decide ?? allowEverything)(request, context);
    switch (decision.decision) {
      case 'allow':
        return signWindow(deps, device, windowTerms(request, deps.nowSeconds()), operation, context);
    }
  });
  const authorization = await device.cloud.registerAuthorization(signed.jws, cloudCall(device, context, idempotencyKeyOf(context)));
  return { outcome: 'created', authorization, window: signed };
}

/**
 * signWindow signs terms with the device key and writes the audit line before returning, so no
 * signature ever leaves the daemon unrecorded.
 */
async function signWindow(deps: CoreDeps, device: EnrolledDevice, terms: WindowTerms, operation: string, context: OperationContext): Promise<SignedWindow> {
  refuseWhilePaused(deps.paused);
  const payload = buildWindowPayload(terms, device.deviceId, deps.nowSeconds());
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
  });
  return { payload, jws, keyId: device.key.keyId };
}

function signIdempotently(
  deps: CoreDeps,
  device: EnrolledDevice,
  operation: string,
  request: AuthorizationRequest,
  context: OperationContext,
  sign: () => Promise<SignedWindow>,
): Promise<SignedWindow> {
  const cache = deps.signedWindows;
  if (cache === undefined || context.idempotencyKey === undefined) return sign();
  return cache.signOnce(device.key.keyId, context.idempotencyKey, requestFingerprint(operation, request), deps.nowSeconds(), sign);
}

/** signCardWindow signs what /authorize would for a one-time request, and contacts nobody. */
export function signCardWindow(deps: CoreDeps, request: OneTimeRequest, context: OperationContext): Promise<SignedWindow> {
  return signWindow(deps, deps.device(), windowTerms(request, deps.nowSeconds()), 'sign_card_policy_window', context);
}

/** signAccountWindow signs an account-wide window (no card), and contacts nobody. */
export function signAccountWindow(deps: CoreDeps, request: AccountWindowRequest, context: OperationContext): Promise<SignedWindow> {
  return signWindow(deps, deps.device(), accountWindowTerms(request, deps.nowSeconds()), 'sign_policy_window', context);
}

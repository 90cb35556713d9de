/**
 * AP2 open mandates in the one pipeline (src/core/sign-window.ts; docs/ap2.md, docs/decisions.md
 * §32, §35): a request of kind `ap2_mandate` is decided, approved, counted and recorded like any
 * other; only once it is allowed, its ledger entry recorded and its card window registered with the
 * cloud does the mandate key sign the two open mandates (the signer refuses otherwise), which are
 * made durable with that entry and audited before they are answered. So nothing is signed for a
 * window the cloud refused, and no signed cloud call is made before the policy allowed it.
 */
import { sdHash } from '../ap2/sd-jwt.js';
import { issuerUri } from '../ap2/open-mandates.js';
import { p256Thumbprint } from '../ap2/p256.js';
import { LatchError } from '../errors/latch-error.js';
import { randomId } from '../ids/random-id.js';
import { signRecordedOpenMandates } from '../signer/index.js';
import type { Ap2MandateRequest, AuthorizationRequest } from './authorization-request.js';
import type { CoreDeps, OperationContext } from './core-deps.js';
import type { SignedWindow } from './window-payload.js';
import { requestSha256 } from './approval.js';

/** An AP2 mandate request with its card's label, read before the decision. */
export interface MandateCard {
  request: Ap2MandateRequest;
  label: string | undefined;
}

/**
 * refuseUnsignableMandates refuses an AP2 request before anything is decided when this daemon
 * cannot sign mandates at all (no mandate key bound or loaded). It reads nothing from the cloud.
 */
export function refuseUnsignableMandates(deps: CoreDeps, request: AuthorizationRequest): void {
  if (request.kind !== 'ap2_mandate') return;
  if (deps.mandates === undefined) throw new LatchError('data_directory_unavailable', { message: 'This daemon signs no AP2 mandates (no mandate key is bound); nothing was signed.' });
  if (deps.mandates.signer() === undefined) throw mandateKeyNotLoaded();
}

/**
 * signRegisteredMandates signs the open mandates of an AP2 request whose card window the cloud
 * has registered: the card's label is read now (a signed cloud call, so only after the policy
 * allowed the request), then signKeptMandates. A retry whose mandates were already signed and
 * kept is answered with those. A failure here leaves the registered window's entry active: the
 * cloud holds the window, so its budget stays counted, and the same request under the same
 * Idempotency-Key registers the same window again and signs its mandates (docs/decisions.md §35).
 */
export async function signRegisteredMandates(deps: CoreDeps, request: Ap2MandateRequest, window: SignedWindow, context: OperationContext): Promise<void> {
  if (deps.authorizations.get(window.payload.policy_id)?.evidence?.mandates !== undefined) return;
  if (deps.mandates === undefined) throw new LatchError('data_directory_unavailable', { message: 'This daemon signs no AP2 mandates (no mandate key is bound); nothing was signed.' });
  const card = { request, label: await deps.mandates.cardLabel(request.cardId, context) };
  await signKeptMandates(deps, card, window, requestSha256(request), context);
}

function mandateKeyNotLoaded(): LatchError {
  return new LatchError('data_directory_unavailable', { message: 'The AP2 mandate key (mandate.key) is not loaded; nothing was signed. Restart the daemon to make it.' });
}

/**
 * signKeptMandates signs the open mandates of the recorded entry of window, valid for the window's
 * own times, keeps them with the entry and writes their `ap2_mandate_signed` line.
 */
async function signKeptMandates(deps: CoreDeps, card: MandateCard, window: SignedWindow, requestSha256: string, context: OperationContext): Promise<void> {
  const signer = deps.mandates?.signer();
  if (signer === undefined) throw mandateKeyNotLoaded();
  const { request, label } = card;
  const { policy_id: policyId, not_before: iat, not_after: exp } = window.payload;
  const { recurrence } = request.mandate;
  const terms = {
    cardId: request.cardId,
    ...(label !== undefined && label !== '' && { cardLabel: label }),
    merchant: request.mandate.merchant,
    amountMaxMinor: request.amountMinor,
    currency: request.currency,
    lines: request.mandate.lines,
    agentKey: request.mandate.agentKey,
    ...(recurrence !== undefined && { recurrence }),
    issuer: issuerUri(window.payload.device_id),
  };
  const signed = signRecordedOpenMandates(signer, deps.authorizations, policyId, terms, iat, exp);
  const mandates = { mandateId: randomId('md'), ...signed, iat, exp };
  await deps.authorizations.keepMandates(policyId, mandates);
  await deps.audit({
    operation: 'ap2_mandate_signed',
    policyId,
    cardId: request.cardId,
    merchant: request.merchant,
    amountMinor: request.amountMinor,
    currency: request.currency,
    keyId: mandates.keyId,
    caller: context.caller,
    principal: context.principal,
    requestSha256,
    mandate: { mandateId: mandates.mandateId, openCheckoutSdHash: sdHash(mandates.openCheckoutMandate), openPaymentSdHash: sdHash(mandates.openPaymentMandate), agentKeyThumbprint: p256Thumbprint(request.mandate.agentKey) },
  });
}

/**
 * AP2 open mandates in the one pipeline (docs/ap2.md, docs/decisions.md §32, §35): decided,
 * approved, counted and recorded like any request; only once its card window is registered does the
 * mandate key sign the two open mandates, kept with the entry and audited before they are answered.
 */
import { sdHash } from '../ap2/sd-jwt.js';
import { p256Thumbprint } from '../ap2/p256.js';
import { LatchError } from '../errors/latch-error.js';
import { randomId } from '../ids/random-id.js';
import type { Ap2MandateRequest, AuthorizationRequest } from './authorization-request.js';
import type { CoreDeps, OperationContext } from './core-deps.js';
import type { SignedWindow } from './window-payload.js';
import { requestSha256 } from './approval.js';

const NO_MANDATE_KEY = 'This daemon signs no AP2 mandates (no mandate key is bound or loaded); nothing was signed. Restart the daemon to make mandate.key.';

/** refuseUnsignableMandates refuses an AP2 request, before anything is decided, when no mandate key can sign it. */
export function refuseUnsignableMandates(deps: CoreDeps, request: AuthorizationRequest): void {
  if (request.kind === 'ap2_mandate' && deps.signer.mandateKey() === undefined) throw new LatchError('data_directory_unavailable', { message: NO_MANDATE_KEY });
}

/**
 * signRegisteredMandates signs the open mandates of a request whose card window the cloud has
 * registered (the card's label, a signed cloud call, is read only now), keeps them with the entry
 * and writes their `ap2_mandate_signed` line; a retry whose mandates are kept gets those. A failure
 * leaves the registered window's entry active, its budget counted (docs/decisions.md §35).
 */
export async function signRegisteredMandates(deps: CoreDeps, request: Ap2MandateRequest, window: SignedWindow, context: OperationContext): Promise<void> {
  const { policy_id: policyId, not_before: iat, not_after: exp } = window.payload;
  if (deps.authorizations.get(policyId)?.evidence?.mandates !== undefined) return;
  if (deps.signer.mandateKey() === undefined) throw new LatchError('data_directory_unavailable', { message: NO_MANDATE_KEY });
  const label = await deps.mandates.cardLabel(request.cardId, context);
  // Checked again in the turn the signer is entered (§42): a retry keeping mandates now, a window settled meanwhile, a record that disagrees (an edited state.journal).
  const entry = deps.authorizations.get(policyId);
  const recorded = entry?.evidence?.request;
  if (deps.authorizations.mandatesKept(policyId)) throw new LatchError('idempotency_key_in_use', { message: 'The AP2 mandates of this request are being signed by another request with the same Idempotency-Key; retry to get them.' });
  if (entry?.state !== 'active') throw new LatchError('authorization_not_active', { message: 'The card window of these AP2 mandates was cancelled, expired or rolled back before they were signed; nothing was signed.' });
  if (recorded?.kind !== 'ap2_mandate' || recorded.cardId !== entry.cardId || recorded.amountMinor !== entry.amountMinor || recorded.currency !== entry.currency) throw new LatchError('data_directory_unavailable', { message: "state.journal's record of this AP2 request does not agree with its ledger entry; nothing was signed." });
  if (deps.signer.mandateKey() === undefined) throw new LatchError('data_directory_unavailable', { message: NO_MANDATE_KEY });
  // The signer reads every term (recurrence and issuer included) from the ledger entry itself (docs/decisions.md §34.1).
  const signed = deps.signer.openMandates(policyId, label);
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
    requestSha256: requestSha256(request),
    mandate: { mandateId: mandates.mandateId, openCheckoutSdHash: sdHash(mandates.openCheckoutMandate), openPaymentSdHash: sdHash(mandates.openPaymentMandate), agentKeyThumbprint: p256Thumbprint(request.mandate.agentKey) },
  });
}

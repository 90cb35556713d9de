/**
 * AP2 open mandates in the one pipeline (src/core/sign-window.ts; docs/ap2.md, docs/decisions.md
 * §32): a request of kind `ap2_mandate` is decided, approved, counted and recorded like any other;
 * only once it is allowed and its ledger entry recorded does the mandate key sign the two open
 * mandates (the signer refuses otherwise), which are made durable with that entry and audited
 * before they are answered.
 */
import { sdHash } from '../ap2/sd-jwt.js';
import { p256Thumbprint } from '../ap2/p256.js';
import { LatchError } from '../errors/latch-error.js';
import { randomId } from '../ids/random-id.js';
import type { Ap2MandateRequest, AuthorizationRequest } from './authorization-request.js';
import type { CoreDeps, OperationContext } from './core-deps.js';
import type { SignedWindow } from './window-payload.js';

/** An AP2 mandate request with its card's label, read before the decision. */
export interface MandateCard {
  request: Ap2MandateRequest;
  label: string | undefined;
}

/** mandateCardOf reads an AP2 request's card label before anything is decided; undefined for other kinds. */
export async function mandateCardOf(deps: CoreDeps, request: AuthorizationRequest, context: OperationContext): Promise<MandateCard | undefined> {
  if (request.kind !== 'ap2_mandate') return undefined;
  if (deps.mandates === undefined) throw new LatchError('data_directory_unavailable', { message: 'This daemon signs no AP2 mandates (no mandate key is bound); nothing was signed.' });
  return { request, label: await deps.mandates.cardLabel(request.cardId, context) };
}

/**
 * signKeptMandates signs the open mandates of the recorded entry of window, valid for the window's
 * own times, keeps them with the entry and writes their `ap2_mandate_signed` line. The caller marks
 * the entry `failed` should any step throw.
 */
export async function signKeptMandates(deps: CoreDeps, card: MandateCard, window: SignedWindow, requestSha256: string, context: OperationContext): Promise<void> {
  const { request, label } = card;
  const { policy_id: policyId, not_before: iat, not_after: exp } = window.payload;
  // The signer reads the terms from the ledger entry itself (docs/decisions.md §34.1).
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
    requestSha256,
    mandate: { mandateId: mandates.mandateId, openCheckoutSdHash: sdHash(mandates.openCheckoutMandate), openPaymentSdHash: sdHash(mandates.openPaymentMandate), agentKeyThumbprint: p256Thumbprint(request.mandate.agentKey) },
  });
}

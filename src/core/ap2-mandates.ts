/**
 * AP2 open mandates through the one authorization pipeline (docs/ap2.md, docs/decisions.md §32):
 * the request is an authorization of kind `ap2_mandate`, decided, approved, counted and recorded
 * like any other; on `allow` the mandate key signs the two open mandates, which ride in the same
 * ledger entry as the card window that backs them, and are audited before they are answered.
 */
import { signOpenMandates } from '../ap2/sign-open-mandates.js';
import { sdHash } from '../ap2/sd-jwt.js';
import { p256Thumbprint } from '../crypto/p256.js';
import { LatchError } from '../errors/latch-error.js';
import { randomId } from '../ids/random-id.js';
import type { Ap2MandateRequest } from './authorization-request.js';
import type { CoreDeps } from './core-deps.js';
import type { Ap2MandateRecord } from './decision-record.js';

/**
 * signMandates signs both open mandates of a request that was allowed, valid from iat to exp (the
 * card window's own times). It is synchronous: the card's label was read before the decision.
 */
export function signMandates(deps: CoreDeps, request: Ap2MandateRequest, cardLabel: string | undefined, iat: number, exp: number): Ap2MandateRecord {
  const signer = deps.mandates?.signer();
  if (signer === undefined) throw new LatchError('data_directory_unavailable', { message: 'The AP2 mandate key (mandate.key) is not loaded; nothing was signed. Restart the daemon to make it.' });
  const terms = { cardId: request.cardId, ...(cardLabel !== undefined && cardLabel !== '' && { cardLabel }), merchant: request.mandate.merchant, amountMaxMinor: request.amountMinor, currency: request.currency, lines: request.mandate.lines, agentKey: request.mandate.agentKey };
  const signed = signOpenMandates(terms, signer, iat, exp);
  return {
    mandateId: randomId('md'),
    openCheckoutMandate: signed.openCheckoutMandate,
    openPaymentMandate: signed.openPaymentMandate,
    openCheckoutHash: signed.openCheckoutHash,
    keyId: signed.keyId,
    iat,
    exp,
  };
}

/** mandateAuditFields are the `ap2_mandate_signed` line's own fields: what was handed out, by hash. */
export function mandateAuditFields(request: Ap2MandateRequest, mandates: Ap2MandateRecord) {
  return {
    mandateId: mandates.mandateId,
    openCheckoutSdHash: sdHash(mandates.openCheckoutMandate),
    openPaymentSdHash: sdHash(mandates.openPaymentMandate),
    agentKeyThumbprint: p256Thumbprint(request.mandate.agentKey),
  };
}

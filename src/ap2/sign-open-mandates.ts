/**
 * Signing the pair of open mandates for one set of terms: the checkout mandate first, since the
 * payment mandate names it by its sd_hash (`payment.reference`). The key is behind `signer`
 * (src/signer/ap2-mandate.ts), which signs open mandates and nothing else.
 */
import { openCheckoutClaims, openPaymentClaims, type MandateTerms, type OpenCheckoutClaims, type OpenPaymentClaims } from './open-mandates.js';
import { sdHash } from './sd-jwt.js';

/** The trusted surface's signer, one method per kind of open mandate; each returns a compact SD-JWT. */
export interface OpenMandateSigner {
  /** The mandate key's id: its RFC 7638 thumbprint, the header's `kid`. */
  readonly kid: string;
  signOpenCheckoutMandate(claims: OpenCheckoutClaims, issuer?: string): string;
  signOpenPaymentMandate(claims: OpenPaymentClaims, issuer?: string): string;
}

/** The signed pair, as POST /ap2/mandates answers it (the caller adds the ids and the time). */
export interface SignedOpenMandates {
  openCheckoutMandate: string;
  openPaymentMandate: string;
  /** The open checkout mandate's sd_hash: what the payment mandate's reference names. */
  openCheckoutHash: string;
  keyId: string;
}

/** signOpenMandates signs both open mandates for terms, valid from iat to exp (Unix seconds). */
export function signOpenMandates(terms: MandateTerms, signer: OpenMandateSigner, iat: number, exp: number): SignedOpenMandates {
  const openCheckoutMandate = signer.signOpenCheckoutMandate(openCheckoutClaims(terms, iat, exp), terms.issuer);
  const openCheckoutHash = sdHash(openCheckoutMandate);
  const openPaymentMandate = signer.signOpenPaymentMandate(openPaymentClaims(terms, openCheckoutHash, iat, exp), terms.issuer);
  return { openCheckoutMandate, openPaymentMandate, openCheckoutHash, keyId: signer.kid };
}

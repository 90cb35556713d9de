/**
 * The AP2 mandate key's signer (docs/ap2.md, docs/decisions.md §32): it holds the P-256 private
 * key and signs open AP2 mandates, and nothing else. Callers ask for a signature of a stated kind
 * (an open checkout mandate, an open payment mandate); there is no raw sign(bytes) and no getter
 * of the private key. Before signing, each purpose checks its own preconditions: the claims are
 * of that kind, carry a bound agent key and a lifetime, and hold no card data.
 */
import { createPrivateKey, sign, type KeyObject } from 'node:crypto';
import { inspect } from 'node:util';
import { toBase64Url } from '../crypto/base64url.js';
import { P256_SCALAR_BYTES, p256Thumbprint, type P256PublicJwk } from '../ap2/p256.js';
import { p256PublicJwkOfScalar } from './p256-scalar.js';
import { assertSignableWithoutCardData } from '../validate/card-data-guard.js';
import { OPEN_CHECKOUT_VCT, OPEN_PAYMENT_VCT, packOpenCheckout, packOpenPayment, type OpenCheckoutClaims, type OpenPaymentClaims } from '../ap2/open-mandates.js';
import { issueRootSdJwt } from '../ap2/sd-jwt.js';
import { signOpenMandates, type OpenMandateSigner, type SignedOpenMandates } from '../ap2/sign-open-mandates.js';
import type { MandateTerms } from '../ap2/open-mandates.js';
import { WindowNotRecordedForSigning, type RecordedWindows } from './window.js';

/** The mandate key's signer. Its private key never leaves this object. */
export class Ap2MandateSigner implements OpenMandateSigner {
  readonly #privateKey: KeyObject;
  readonly kid: string;
  readonly publicJwk: P256PublicJwk;

  /** fromScalar builds the signer of a stored private scalar `d` (32 bytes); the caller then drops its copy. */
  static fromScalar(d: Uint8Array): Ap2MandateSigner {
    if (d.length !== P256_SCALAR_BYTES) throw new Error('Ap2MandateSigner: the scalar is not 32 bytes');
    return new Ap2MandateSigner(d);
  }

  private constructor(d: Uint8Array) {
    this.publicJwk = p256PublicJwkOfScalar(d);
    // One KeyObject for the life of the daemon: making one per signature would cost more than the signature.
    this.#privateKey = createPrivateKey({ key: { ...this.publicJwk, d: toBase64Url(d) }, format: 'jwk' });
    this.kid = p256Thumbprint(this.publicJwk);
  }

  /** signOpenCheckoutMandate signs an open checkout mandate (vct mandate.checkout.open.1), naming `iss` when given. */
  signOpenCheckoutMandate(claims: OpenCheckoutClaims, issuer?: string): string {
    checkOpenMandate(claims, OPEN_CHECKOUT_VCT);
    return issueRootSdJwt(claims, packOpenCheckout, this.#signerFor(), issuer);
  }

  /** signOpenPaymentMandate signs an open payment mandate (vct mandate.payment.open.1), naming `iss` when given. */
  signOpenPaymentMandate(claims: OpenPaymentClaims, issuer?: string): string {
    checkOpenMandate(claims, OPEN_PAYMENT_VCT);
    return issueRootSdJwt(claims, packOpenPayment, this.#signerFor(), issuer);
  }

  #signerFor() {
    const key = this.#privateKey;
    return { kid: this.kid, sign: (signingInput: string) => new Uint8Array(sign('sha256', Buffer.from(signingInput, 'ascii'), { key, dsaEncoding: 'ieee-p1363' })) };
  }

  toJSON(): { kid: string; publicJwk: P256PublicJwk } {
    return { kid: this.kid, publicJwk: this.publicJwk };
  }

  [inspect.custom](): string {
    return `Ap2MandateSigner { kid: '${this.kid}' }`;
  }
}

/** checkOpenMandate is each purpose's precondition; a failure is a programming error, never input. */
function checkOpenMandate(claims: OpenCheckoutClaims | OpenPaymentClaims, vct: string): void {
  if (claims.vct !== vct) throw new Error(`Ap2MandateSigner: asked to sign ${String(claims.vct)} as ${vct}`);
  if (claims.cnf?.jwk?.kty !== 'EC') throw new Error('Ap2MandateSigner: an open mandate must bind the agent key (cnf)');
  if (!Number.isSafeInteger(claims.iat) || !Number.isSafeInteger(claims.exp) || claims.exp <= claims.iat) throw new Error('Ap2MandateSigner: an open mandate needs iat < exp');
  assertSignableWithoutCardData(claims);
}

/**
 * signRecordedOpenMandates signs the open mandates of an AP2 request only when the ledger holds its
 * card window as the active entry of an allowed `ap2_mandate` request with these terms: like a
 * window (window.ts), a caller that skipped the decision or the record gets no mandate.
 */
export function signRecordedOpenMandates(signer: OpenMandateSigner, ledger: RecordedWindows, policyId: string, terms: MandateTerms, iat: number, exp: number): SignedOpenMandates {
  const entry = ledger.get(policyId);
  if (entry === undefined) throw new WindowNotRecordedForSigning(policyId, 'the ledger holds no entry for its mandates');
  const request = entry.evidence?.request;
  const recorded = entry.state === 'active' && request?.kind === 'ap2_mandate' && entry.cardId === terms.cardId && entry.amountMinor === terms.amountMaxMinor && entry.currency === terms.currency && entry.notAfterSeconds === exp && entry.evidence?.window.not_before === iat;
  if (!recorded || entry.evidence?.mandates !== undefined) throw new WindowNotRecordedForSigning(policyId, 'its ledger entry is not an active AP2 mandate request with these terms, or its mandates are already signed');
  return signOpenMandates(terms, signer, iat, exp);
}

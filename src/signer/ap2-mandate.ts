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
import { P256_SCALAR_BYTES, p256PublicJwkOfScalar, p256Thumbprint, type P256PublicJwk } from '../crypto/p256.js';
import { assertSignableWithoutCardData } from '../validate/card-data-guard.js';
import { OPEN_CHECKOUT_VCT, OPEN_PAYMENT_VCT, packOpenCheckout, packOpenPayment, type OpenCheckoutClaims, type OpenPaymentClaims } from '../ap2/open-mandates.js';
import { issueRootSdJwt } from '../ap2/sd-jwt.js';
import type { OpenMandateSigner } from '../ap2/sign-open-mandates.js';

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

  /** signOpenCheckoutMandate signs an open checkout mandate (vct mandate.checkout.open.1). */
  signOpenCheckoutMandate(claims: OpenCheckoutClaims): string {
    checkOpenMandate(claims, OPEN_CHECKOUT_VCT);
    return issueRootSdJwt(claims, packOpenCheckout, this.#signerFor());
  }

  /** signOpenPaymentMandate signs an open payment mandate (vct mandate.payment.open.1). */
  signOpenPaymentMandate(claims: OpenPaymentClaims): string {
    checkOpenMandate(claims, OPEN_PAYMENT_VCT);
    return issueRootSdJwt(claims, packOpenPayment, this.#signerFor());
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

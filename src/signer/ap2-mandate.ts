/**
 * The AP2 mandate key's purpose (docs/ap2.md, docs/decisions.md §32, §34.1): the P-256 key signs
 * the two open mandates of one recorded `ap2_mandate` ledger entry, and nothing else. The key is a
 * handle (MandateKey: kid and public JWK) whose private half is held in this module's WeakMap, so
 * no object anywhere has a method that signs a mandate: the one way in is signRecordedOpenMandates,
 * which reads the terms from the ledger entry itself, never from its caller.
 */
import { createPrivateKey, sign, type KeyObject } from 'node:crypto';
import { inspect } from 'node:util';
import { toBase64Url } from '../crypto/base64url.js';
import { P256_SCALAR_BYTES, p256Thumbprint, type P256PublicJwk } from '../ap2/p256.js';
import { p256PublicJwkOfScalar } from './p256-scalar.js';
import { assertSignableWithoutCardData } from '../validate/card-data-guard.js';
import { OPEN_CHECKOUT_VCT, OPEN_PAYMENT_VCT, issuerUri, packOpenCheckout, packOpenPayment, type MandateTerms, type OpenCheckoutClaims, type OpenPaymentClaims } from '../ap2/open-mandates.js';
import { issueRootSdJwt } from '../ap2/sd-jwt.js';
import { signOpenMandates, type OpenMandateSigner, type SignedOpenMandates } from '../ap2/sign-open-mandates.js';
import { entered } from './entered.js';
import type { RecordedWindows } from './window.js';

/** The mandate key as anyone may see it: its RFC 7638 thumbprint and public JWK. */
export class MandateKey {
  readonly kid: string;
  readonly publicJwk: P256PublicJwk;

  /** fromScalar holds a stored private scalar `d` (32 bytes); the caller then drops its copy. */
  static fromScalar(d: Uint8Array): MandateKey {
    if (d.length !== P256_SCALAR_BYTES) throw new Error('MandateKey: the scalar is not 32 bytes');
    return new MandateKey(d);
  }

  private constructor(d: Uint8Array) {
    this.publicJwk = p256PublicJwkOfScalar(d);
    this.kid = p256Thumbprint(this.publicJwk);
    // One KeyObject for the life of the key: making one per signature would cost more than the signature.
    privateKeys.set(this, createPrivateKey({ key: { ...this.publicJwk, d: toBase64Url(d) }, format: 'jwk' }));
  }

  toJSON(): { kid: string; publicJwk: P256PublicJwk } {
    return { kid: this.kid, publicJwk: this.publicJwk };
  }

  [inspect.custom](): string {
    return `MandateKey { kid: '${this.kid}' }`;
  }
}

const privateKeys = new WeakMap<MandateKey, KeyObject>();

/**
 * signRecordedOpenMandates signs the open mandates of the ledger entry under policyId: only an
 * active entry of an allowed `ap2_mandate` request whose mandates are not signed yet, and only for
 * the terms the entry recorded (card, merchant, amount, currency, lines, agent key, its window's
 * times). cardLabel is the instrument's description, no term of authority.
 */
export function signRecordedOpenMandates(key: MandateKey, ledger: RecordedWindows, policyId: string, cardLabel: string | undefined): SignedOpenMandates {
  const entry = ledger.get(policyId);
  const evidence = entry?.evidence;
  const request = evidence?.request;
  const purpose = `mandates ${policyId}`;
  entered(entry !== undefined && evidence !== undefined && request?.kind === 'ap2_mandate' && entry.state === 'active', purpose, () => (entry === undefined ? 'the ledger holds no entry for it' : 'its ledger entry is not an active AP2 mandate request'));
  entered(evidence.mandates === undefined, purpose, () => 'its mandates are signed already');
  // The entry counted and reserved is what the mandates grant: the request it keeps must agree with it.
  entered(request.cardId === entry.cardId && request.amountMinor === entry.amountMinor && request.currency === entry.currency, purpose, () => 'the recorded request and its ledger entry differ');
  const terms: MandateTerms = {
    cardId: request.cardId,
    ...(cardLabel !== undefined && cardLabel !== '' && { cardLabel }),
    merchant: request.mandate.merchant,
    amountMaxMinor: entry.amountMinor,
    currency: entry.currency,
    lines: request.mandate.lines,
    agentKey: request.mandate.agentKey,
    ...(request.mandate.recurrence !== undefined && { recurrence: request.mandate.recurrence }),
    issuer: issuerUri(evidence.window.device_id),
  };
  return signOpenMandates(terms, openMandateSigner(key), evidence.window.not_before, entry.notAfterSeconds);
}

/** openMandateSigner is the key's two kinds of open mandate, for this one call only. */
function openMandateSigner(key: MandateKey): OpenMandateSigner {
  const privateKey = privateKeys.get(key);
  if (privateKey === undefined) throw new Error('the signer holds no mandate key for this handle');
  const es256 = { kid: key.kid, sign: (signingInput: string) => new Uint8Array(sign('sha256', Buffer.from(signingInput, 'ascii'), { key: privateKey, dsaEncoding: 'ieee-p1363' })) };
  return {
    kid: key.kid,
    signOpenCheckoutMandate: (claims: OpenCheckoutClaims, issuer?: string) => {
      checkOpenMandate(claims, OPEN_CHECKOUT_VCT);
      return issueRootSdJwt(claims, packOpenCheckout, es256, issuer);
    },
    signOpenPaymentMandate: (claims: OpenPaymentClaims, issuer?: string) => {
      checkOpenMandate(claims, OPEN_PAYMENT_VCT);
      return issueRootSdJwt(claims, packOpenPayment, es256, issuer);
    },
  };
}

/** checkOpenMandate is each kind's precondition; a failure is a programming error, never input. */
function checkOpenMandate(claims: OpenCheckoutClaims | OpenPaymentClaims, vct: string): void {
  if (claims.vct !== vct) throw new Error(`the mandate signer was asked to sign ${String(claims.vct)} as ${vct}`);
  if (claims.cnf?.jwk?.kty !== 'EC') throw new Error('an open mandate must bind the agent key (cnf)');
  if (!Number.isSafeInteger(claims.iat) || !Number.isSafeInteger(claims.exp) || claims.exp <= claims.iat) throw new Error('an open mandate needs iat < exp');
  assertSignableWithoutCardData(claims);
}

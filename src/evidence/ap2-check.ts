/**
 * The AP2 part of `latch evidence verify` (docs/ap2.md): both open mandates verify, strictly, under
 * the pack's mandate key; they say exactly what the request asked, bound to its agent key, for the
 * card window's own lifetime; the payment mandate names the checkout mandate by its sd_hash; and
 * the audit excerpt holds the `ap2_mandate_signed` line naming both by hash.
 */
import { issuerUri, openCheckoutClaims, openPaymentClaims, type MandateTerms } from '../ap2/open-mandates.js';
import { sdHash } from '../ap2/sd-jwt.js';
import { SdJwtRefused, verifyRootSdJwt } from '../ap2/verify-sd-jwt.js';
import type { Ap2MandateRequest } from '../core/authorization-request.js';
import { p256PublicJwkFromUntrusted, p256PublicKeyObject, p256Thumbprint } from '../ap2/p256.js';
import { isoSeconds } from '../time/iso-time.js';
import { type Json, isObject } from './pack-json.js';

const MEMBERS = ['policy_id', 'mandate_id', 'open_checkout_mandate', 'open_payment_mandate', 'open_checkout_hash', 'key_id', 'expires_at', 'jwks'];

/** checkAp2 returns a sentence naming the first thing that does not hold, or undefined. */
export function checkAp2(ap2: unknown, request: Ap2MandateRequest, window: Json, auditLines: readonly string[]): string | undefined {
  if (!isObject(ap2) || Object.keys(ap2).join() !== MEMBERS.join()) return `ap2 is not {${MEMBERS.join(', ')}}`;
  if (ap2['policy_id'] !== window['policy_id']) return "ap2.policy_id is not the window's";
  const keys = isObject(ap2['jwks']) && Array.isArray(ap2['jwks']['keys']) ? (ap2['jwks']['keys'] as unknown[]) : undefined;
  if (keys === undefined || keys.length !== 1) return 'ap2.jwks does not hold exactly one key';
  const checked = p256PublicJwkFromUntrusted(keys[0]);
  if ('refused' in checked) return `ap2.jwks' key is not a P-256 public key (${checked.refused})`;
  const kid = p256Thumbprint(checked.jwk);
  if ((keys[0] as Json)['kid'] !== kid || ap2['key_id'] !== kid) return "ap2.key_id is not the mandate key's RFC 7638 thumbprint";
  const key = p256PublicKeyObject(checked.jwk);
  const keyFor = (named: string) => (named === kid ? key : undefined);
  const checkout = ap2['open_checkout_mandate'];
  const payment = ap2['open_payment_mandate'];
  if (typeof checkout !== 'string' || typeof payment !== 'string') return 'ap2 mandates are not text';
  let checkoutClaims: Json;
  let paymentClaims: Json;
  const issuers: (string | undefined)[] = [];
  try {
    const verified = verifyRootSdJwt(checkout, keyFor);
    checkoutClaims = verified.delegate;
    issuers.push(verified.issuer);
  } catch (error) {
    return `the open checkout mandate does not verify: ${error instanceof SdJwtRefused ? error.message : 'unreadable'}`;
  }
  try {
    const verified = verifyRootSdJwt(payment, keyFor);
    paymentClaims = verified.delegate;
    issuers.push(verified.issuer);
  } catch (error) {
    return `the open payment mandate does not verify: ${error instanceof SdJwtRefused ? error.message : 'unreadable'}`;
  }
  // Mandates signed since iss was written name the window's device; older ones name nobody.
  if (issuers.some((issuer) => issuer !== undefined && issuer !== issuerUri(String(window['device_id'])))) return "a mandate's iss is not the window's device";
  const hash = sdHash(checkout);
  if (ap2['open_checkout_hash'] !== hash) return "ap2.open_checkout_hash is not the open checkout mandate's sd_hash";
  const iat = window['not_before'] as number;
  const exp = window['not_after'] as number;
  if (ap2['expires_at'] !== isoSeconds(exp)) return "ap2.expires_at is not the card window's not_after";
  const terms = termsOf(request, paymentClaims);
  if (JSON.stringify(checkoutClaims) !== JSON.stringify(openCheckoutClaims(terms, iat, exp))) return 'the open checkout mandate does not say exactly what was asked, for the window\'s lifetime';
  if (JSON.stringify(paymentClaims) !== JSON.stringify(openPaymentClaims(terms, hash, iat, exp))) return 'the open payment mandate does not say exactly what was asked, for the window\'s lifetime';
  const signedLine = auditLines.some((line) => {
    const record = JSON.parse(line) as Json;
    return record['operation'] === 'ap2_mandate_signed' && record['policy_id'] === window['policy_id'] && record['key_id'] === kid && record['mandate_id'] === ap2['mandate_id'] && record['open_checkout_sd_hash'] === hash && record['open_payment_sd_hash'] === sdHash(payment) && record['agent_key_thumbprint'] === p256Thumbprint(request.mandate.agentKey);
  });
  if (!signedLine) return 'no ap2_mandate_signed audit line names these mandates';
  return undefined;
}

/** termsOf is what the mandates must carry; the card's label is read from the mandate, as it is no term the agent asked. */
function termsOf(request: Ap2MandateRequest, paymentClaims: Json): MandateTerms {
  const constraints = Array.isArray(paymentClaims['constraints']) ? (paymentClaims['constraints'] as unknown[]).filter(isObject) : [];
  const instruments = constraints.find((constraint) => constraint['type'] === 'payment.allowed_payment_instruments');
  const described = Array.isArray(instruments?.['allowed']) ? (instruments['allowed'] as Json[])[0]?.['description'] : undefined;
  const { recurrence } = request.mandate;
  return {
    cardId: request.cardId,
    ...(typeof described === 'string' && { cardLabel: described }),
    merchant: request.mandate.merchant,
    amountMaxMinor: request.amountMinor,
    currency: request.currency,
    lines: request.mandate.lines,
    agentKey: request.mandate.agentKey,
    ...(recurrence !== undefined && { recurrence }),
  };
}

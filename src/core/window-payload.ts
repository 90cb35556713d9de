import { randomBytes } from 'node:crypto';
import { toBase64Url } from '../crypto/base64url.js';
import { formatMinor } from '../money/amount.js';
import { randomId } from '../ids/random-id.js';
import type { AuthorizationKind, AuthorizationType, RecurringInterval } from './model.js';

/**
 * The payload of a signed window (docs/decisions.md §5): what the device key signs for an authorization or
 * for /sign-*-policy-window. Times are Unix seconds.
 */
export interface PolicyWindowPayload {
  v: 1;
  typ: 'policy_window' | 'card_policy_window';
  policy_id: string;
  device_id: string;
  card_id?: string;
  merchant: string;
  amount: string;
  currency: string;
  authorization_type: AuthorizationType;
  kind: AuthorizationKind;
  not_before: number;
  not_after: number;
  nonce: string;
  iat: number;
  interval?: RecurringInterval;
  interval_count?: number;
  max_charges?: number;
  /** The caller's purpose (order id or note), when given. */
  reference?: string;
}

/** The signed payload of a revocation. */
export interface RevocationPayload {
  v: 1;
  typ: 'revocation';
  policy_id: string;
  device_id: string;
  reason?: string;
  nonce: string;
  iat: number;
}

/** A signed window that has not been sent anywhere: its payload, the compact JWS and the key id. */
export interface SignedWindow {
  payload: PolicyWindowPayload;
  jws: string;
  keyId: string;
}

/** What a window is for, before ids, nonce and times are added. */
export interface WindowTerms {
  cardId: string | null;
  merchant: string;
  amountMinor: number;
  currency: string;
  authorizationType: AuthorizationType;
  kind: AuthorizationKind;
  notBefore: number;
  notAfter: number;
  recurring?: { interval: RecurringInterval; intervalCount: number; maxCharges: number | null };
  /** The caller's purpose, signed with the window when given. */
  reference?: string;
}

/** buildWindowPayload makes the payload for terms, with a fresh policy_id and nonce. */
export function buildWindowPayload(terms: WindowTerms, deviceId: string, nowSeconds: number): PolicyWindowPayload {
  const payload: PolicyWindowPayload = {
    v: 1,
    typ: terms.cardId === null ? 'policy_window' : 'card_policy_window',
    policy_id: randomId('pw'),
    device_id: deviceId,
    merchant: terms.merchant,
    amount: formatMinor(terms.amountMinor),
    currency: terms.currency,
    authorization_type: terms.authorizationType,
    kind: terms.kind,
    not_before: terms.notBefore,
    not_after: terms.notAfter,
    nonce: toBase64Url(randomBytes(16)),
    iat: nowSeconds,
  };
  if (terms.cardId !== null) payload.card_id = terms.cardId;
  if (terms.reference !== undefined) payload.reference = terms.reference;
  if (terms.recurring !== undefined) {
    payload.interval = terms.recurring.interval;
    payload.interval_count = terms.recurring.intervalCount;
    if (terms.recurring.maxCharges !== null) payload.max_charges = terms.recurring.maxCharges;
  }
  return payload;
}

/** buildRevocationPayload makes the payload revoking policyId. */
export function buildRevocationPayload(policyId: string, deviceId: string, nowSeconds: number, reason?: string): RevocationPayload {
  const payload: RevocationPayload = { v: 1, typ: 'revocation', policy_id: policyId, device_id: deviceId, nonce: toBase64Url(randomBytes(16)), iat: nowSeconds };
  if (reason !== undefined) payload.reason = reason;
  return payload;
}

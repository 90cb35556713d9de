/**
 * Readers for the signed payloads of docs/decisions.md §5. The JWS has been verified when these run,
 * but a valid signature only proves who sent a payload, not that it is well formed: every field
 * is checked, unknown fields are refused, and the amount is read exactly from its decimal text.
 */
import { invalidRequest } from '../../errors/latch-error.js';
import { parseAmountText } from '../../money/amount.js';
import { wireIdPattern } from '../../ids/wire-ids.js';
import { AUTHORIZATION_KINDS, AUTHORIZATION_TYPES, RECURRING_INTERVALS } from '../../core/model.js';
import { normalizeMerchant } from '../../validate/merchant.js';
import type { AuthorizationKind, AuthorizationType, RecurringInterval } from '../ledger/state.js';

export type WindowTyp = 'card_policy_window' | 'policy_window';

export interface WindowPayload {
  typ: WindowTyp;
  policyId: string;
  deviceId: string;
  cardId: string | null;
  merchant: string;
  /** Minor units; zero only passes later checks for merchant verification. */
  amount: number;
  currency: string;
  authorizationType: AuthorizationType;
  kind: AuthorizationKind;
  notBefore: number;
  notAfter: number;
  iat: number;
  recurring: { interval: RecurringInterval; intervalCount: number; maxCharges: number | null } | null;
}

export interface RevocationPayload {
  policyId: string;
  deviceId: string;
  reason: string | null;
  iat: number;
}

const WINDOW_FIELDS = new Set([
  'v', 'typ', 'policy_id', 'device_id', 'card_id', 'merchant', 'amount', 'currency', 'authorization_type', 'kind',
  'not_before', 'not_after', 'nonce', 'iat', 'interval', 'interval_count', 'max_charges', 'reference',
]);
const REVOCATION_FIELDS = new Set(['v', 'typ', 'policy_id', 'device_id', 'reason', 'nonce', 'iat']);

/** Signed windows carry ids Latch or the cloud made (24 characters), so the cloud wants at least 8. */
const SIGNED_ID_BODY_LENGTH_MIN = 8;
const POLICY_ID = wireIdPattern('pw', SIGNED_ID_BODY_LENGTH_MIN);
const DEVICE_ID = wireIdPattern('dev', SIGNED_ID_BODY_LENGTH_MIN);
const CARD_ID = wireIdPattern('card', SIGNED_ID_BODY_LENGTH_MIN);
const NONCE = /^[A-Za-z0-9_-]{8,128}$/;
const REFERENCE = /^[^\p{Cc}\p{Cf}]{1,200}$/u;
const CURRENCY = /^[A-Z]{3}$/;
/** Unix seconds up to the year 9999. */
const TIME_MAX = 253_402_300_799;
export const INTERVAL_COUNT_MAX = 366;
export const MAX_CHARGES_MAX = 100_000;

/** readWindowPayload checks a verified policy-window payload and returns it typed. */
export function readWindowPayload(payload: Record<string, unknown>, expectedTyp: WindowTyp): WindowPayload {
  refuseUnknown(payload, WINDOW_FIELDS);
  if (payload['v'] !== 1) throw invalidRequest('v', 'v must be 1.');
  if (payload['typ'] !== expectedTyp) throw invalidRequest('typ', `typ must be "${expectedTyp}" on this endpoint.`);
  const kind = choice(payload, 'kind', AUTHORIZATION_KINDS);
  let cardId: string | null = null;
  if (expectedTyp === 'card_policy_window') cardId = text(payload, 'card_id', CARD_ID, 'a card id like card_...');
  else if (payload['card_id'] !== undefined) throw invalidRequest('card_id', 'An account-wide window has no card_id; use POST /v1/authorizations for a card.');
  const merchant = text(payload, 'merchant', /^[\x21-\x7e]{1,253}$/, 'a normalized merchant domain');
  if (normalizeMerchant(merchant, 'merchant') !== merchant) throw invalidRequest('merchant', 'merchant must be signed in its normalized form (lower case, ASCII, no trailing dot).');
  const amountText = text(payload, 'amount', /^[0-9.]{1,24}$/, 'a decimal string like "12.50"');
  const recurring = kind === 'recurring' ? readRecurrence(payload) : null;
  if (kind !== 'recurring') {
    for (const name of ['interval', 'interval_count', 'max_charges']) {
      if (payload[name] !== undefined) throw invalidRequest(name, `${name} is only for recurring windows.`);
    }
  }
  text(payload, 'nonce', NONCE, '8 to 128 base64url characters');
  // The caller's purpose is signed with the window; the cloud keeps it as part of the signed
  // window and only checks that it is printable text of a bounded length.
  if (payload['reference'] !== undefined) text(payload, 'reference', REFERENCE, 'at most 200 printable characters');
  return {
    typ: expectedTyp,
    policyId: text(payload, 'policy_id', POLICY_ID, 'an id like pw_...'),
    deviceId: text(payload, 'device_id', DEVICE_ID, 'a device id like dev_...'),
    cardId,
    merchant,
    amount: parseAmountText(amountText, { param: 'amount', allowZero: true }),
    currency: text(payload, 'currency', CURRENCY, 'three upper-case letters'),
    authorizationType: choice(payload, 'authorization_type', AUTHORIZATION_TYPES),
    kind,
    notBefore: time(payload, 'not_before'),
    notAfter: time(payload, 'not_after'),
    iat: time(payload, 'iat'),
    recurring,
  };
}

/** readRevocationPayload checks a verified revocation payload and returns it typed. */
export function readRevocationPayload(payload: Record<string, unknown>): RevocationPayload {
  refuseUnknown(payload, REVOCATION_FIELDS);
  if (payload['v'] !== 1) throw invalidRequest('v', 'v must be 1.');
  if (payload['typ'] !== 'revocation') throw invalidRequest('typ', 'typ must be "revocation" on this endpoint.');
  text(payload, 'nonce', NONCE, '8 to 128 base64url characters');
  let reason: string | null = null;
  if (payload['reason'] !== undefined && payload['reason'] !== null) {
    reason = text(payload, 'reason', /^[\x20-\x7e\u00a0-\uffff]{1,256}$/u, 'at most 256 printable characters');
  }
  return {
    policyId: text(payload, 'policy_id', POLICY_ID, 'an id like pw_...'),
    deviceId: text(payload, 'device_id', DEVICE_ID, 'a device id like dev_...'),
    reason,
    iat: time(payload, 'iat'),
  };
}

function readRecurrence(payload: Record<string, unknown>): NonNullable<WindowPayload['recurring']> {
  const interval = choice(payload, 'interval', RECURRING_INTERVALS);
  const intervalCount = payload['interval_count'] === undefined ? 1 : integer(payload, 'interval_count', 1, INTERVAL_COUNT_MAX);
  const maxCharges = payload['max_charges'] === undefined || payload['max_charges'] === null ? null : integer(payload, 'max_charges', 1, MAX_CHARGES_MAX);
  return { interval, intervalCount, maxCharges };
}

function refuseUnknown(payload: Record<string, unknown>, known: ReadonlySet<string>): void {
  for (const name of Object.keys(payload)) {
    if (!known.has(name)) throw invalidRequest(name.length <= 64 && /^[\x21-\x7e]+$/.test(name) ? name : 'jws', 'The signed payload has an unknown field.');
  }
}

function text(payload: Record<string, unknown>, name: string, pattern: RegExp, describe: string): string {
  const value = payload[name];
  if (typeof value !== 'string' || !pattern.test(value)) throw invalidRequest(name, `${name} must be ${describe}.`);
  return value;
}

function choice<const V extends readonly string[]>(payload: Record<string, unknown>, name: string, values: V): V[number] {
  const value = payload[name];
  if (typeof value !== 'string' || !values.includes(value)) throw invalidRequest(name, `${name} must be one of ${values.join(', ')}.`);
  return value;
}

function integer(payload: Record<string, unknown>, name: string, min: number, max: number): number {
  const value = payload[name];
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
    throw invalidRequest(name, `${name} must be an integer from ${min} to ${max}.`);
  }
  return value;
}

function time(payload: Record<string, unknown>, name: string): number {
  return integer(payload, name, 0, TIME_MAX);
}

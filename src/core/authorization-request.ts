/**
 * An authorization request as a value: what a caller asks the daemon to sign and register, one
 * shape per kind. /authorize, /merchant-bind and /recurring on A, and B's /authorize, each build
 * one; the policy and the approval store will hold exactly this value.
 */
import { LatchError } from '../errors/latch-error.js';
import type { AuthorizationKind, AuthorizationType, RecurringInterval } from './model.js';
import type { WindowTerms } from './window-payload.js';
import type { Ap2Merchant, MandateLine } from '../ap2/open-mandates.js';
import type { P256PublicJwk } from '../ap2/p256.js';
import { recurringWindowOf, type MandateRecurrence } from '../ap2/recurrence.js';
import type { X402Requirements, X402Resource } from '../x402/requirements.js';

interface RequestBase {
  cardId: string;
  merchant: string;
  amountMinor: number;
  currency: string;
  /** The caller's purpose (an order id or a note), signed into the window and audited; optional. */
  reference?: string;
}

/** A one-time authorization: the window runs ttlSeconds from signing. */
export interface OneTimeRequest extends RequestBase {
  kind: 'one_time';
  authorizationType: AuthorizationType;
  ttlSeconds: number;
}

/** A server-capped merchant verification: always a ceiling window. */
export interface MerchantVerificationRequest extends RequestBase {
  kind: 'merchant_verification';
  ttlSeconds: number;
}

/** A recurring authorization: at most one approved charge per period. */
export interface RecurringRequest extends RequestBase {
  kind: 'recurring';
  authorizationType: AuthorizationType;
  interval: RecurringInterval;
  intervalCount: number;
  startsAt: number | null;
  endsAt: number | null;
  maxCharges: number | null;
}

/**
 * An agent's AP2 open mandates (docs/ap2.md): decided and counted as a ceiling of amountMinor
 * (amount_max) for ttlSeconds, registered as a one-time (or, recurring, a recurring) ceiling card
 * window for the same card, merchant (the website's host) and lifetime, and signed as the two open
 * mandates bound to the agent's key. The whole request, agent key included, is what an approval is bound to.
 */
export interface Ap2MandateRequest extends RequestBase {
  kind: 'ap2_mandate';
  ttlSeconds: number;
  mandate: {
    merchant: Ap2Merchant;
    lines: MandateLine[];
    agentKey: P256PublicJwk;
    recurrence?: MandateRecurrence;
  };
}

/**
 * An agent's x402 payment (docs/x402.md): no card and no window. The merchant is the resource URL's
 * host, and the amount is the atomic amount counted in the asset's `counts_as` currency, rounded up
 * to its minor unit (src/x402/counting.ts); `upto` counts its maximum. The whole request, the
 * requirements included, is what an approval is bound to.
 */
export interface X402Request {
  kind: 'x402';
  cardId: null;
  merchant: string;
  amountMinor: number;
  currency: string;
  reference?: string;
  x402: {
    resource: X402Resource;
    requirements: X402Requirements;
    /** The asset's symbol and decimals from the assets table the request was counted with. */
    symbol: string;
    decimals: number;
  };
}

/** A request for a window: every kind but x402. */
export type WindowRequest = OneTimeRequest | MerchantVerificationRequest | RecurringRequest | Ap2MandateRequest;

export type AuthorizationRequest = WindowRequest | X402Request;

/** Every kind of request the pipeline takes: the cloud's kinds of window, and AP2 mandates (core/model.ts). */
export type { RequestKind } from './model.js';

/** An account-wide window (/sign-policy-window): like a one-time request, with no card at all. */
export interface AccountWindowRequest {
  merchant: string;
  amountMinor: number;
  currency: string;
  authorizationType: AuthorizationType;
  ttlSeconds: number;
}

/** The audit log's operation name for each kind, as written since the first release. */
export const AUDIT_OPERATION: Readonly<Record<AuthorizationRequest['kind'], string>> = {
  one_time: 'authorize',
  merchant_verification: 'merchant_bind',
  recurring: 'recurring',
  ap2_mandate: 'ap2_mandate',
  x402: 'x402_authorized',
};

/** A recurring schedule without ends_at runs for one year. */
export const RECURRING_DEFAULT_SECONDS = 365 * 24 * 3600;

/**
 * A recurring schedule may start at most this far back (clock skew), at most a year ahead (the
 * cloud's bound, checked here so the error names starts_at), and span at most five years.
 */
export const RECURRING_START_SKEW_SECONDS = 300;
export const RECURRING_START_AHEAD_SECONDS_MAX = 366 * 24 * 3600;
export const RECURRING_SPAN_SECONDS_MAX = 5 * 366 * 24 * 3600;

/** checkRecurringSchedule refuses a schedule that starts in the past or too far ahead, ends before it starts, or runs too long. */
export function checkRecurringSchedule(startsAt: number | undefined, endsAt: number | undefined, nowSeconds: number): void {
  const start = startsAt ?? nowSeconds;
  if (startsAt !== undefined && startsAt < nowSeconds - RECURRING_START_SKEW_SECONDS) {
    throw new LatchError('invalid_request', { param: 'starts_at', message: 'starts_at must not be in the past.' });
  }
  if (startsAt !== undefined && startsAt > nowSeconds + RECURRING_START_AHEAD_SECONDS_MAX) {
    throw new LatchError('invalid_request', { param: 'starts_at', message: 'starts_at may be at most a year ahead.' });
  }
  if (endsAt !== undefined && endsAt <= start) {
    throw new LatchError('invalid_request', { param: 'ends_at', message: 'ends_at must be after starts_at.' });
  }
  if (endsAt !== undefined && endsAt - start > RECURRING_SPAN_SECONDS_MAX) {
    throw new LatchError('invalid_request', { param: 'ends_at', message: 'A recurring schedule may span at most five years.' });
  }
}

/** checkRequest applies the business rules a request must meet before anything is decided or signed. */
export function checkRequest(request: AuthorizationRequest, nowSeconds: number): void {
  if (request.kind === 'recurring') checkRecurringSchedule(request.startsAt ?? undefined, request.endsAt ?? undefined, nowSeconds);
}

/** cardWindowKind is the kind of card window a request registers (for an AP2 mandate, one_time or recurring). */
export function cardWindowKind(request: Pick<WindowRequest, 'kind'> & { mandate?: Ap2MandateRequest['mandate'] }): AuthorizationKind {
  if (request.kind !== 'ap2_mandate') return request.kind;
  return request.mandate?.recurrence === undefined ? 'one_time' : 'recurring';
}

/** windowTerms gives the terms of the window signed for a request, with times from nowSeconds. */
export function windowTerms(request: WindowRequest, nowSeconds: number): WindowTerms {
  const base = {
    cardId: request.cardId,
    merchant: request.merchant,
    amountMinor: request.amountMinor,
    currency: request.currency,
    ...(request.reference !== undefined && { reference: request.reference }),
  };
  switch (request.kind) {
    case 'one_time':
      return { ...base, authorizationType: request.authorizationType, kind: 'one_time', notBefore: nowSeconds, notAfter: nowSeconds + request.ttlSeconds };
    case 'merchant_verification':
      return { ...base, authorizationType: 'ceiling', kind: 'merchant_verification', notBefore: nowSeconds, notAfter: nowSeconds + request.ttlSeconds };
    case 'ap2_mandate': {
      // The card window that backs the mandates: the card declines more than they allow.
      const { recurrence } = request.mandate;
      const times = { authorizationType: 'ceiling' as const, notBefore: nowSeconds, notAfter: nowSeconds + request.ttlSeconds };
      return recurrence === undefined ? { ...base, kind: 'one_time', ...times } : { ...base, kind: 'recurring', ...times, recurring: recurringWindowOf(recurrence, request.amountMinor) };
    }
    case 'recurring': {
      const notBefore = request.startsAt ?? nowSeconds;
      return {
        ...base,
        authorizationType: request.authorizationType,
        kind: 'recurring',
        notBefore,
        notAfter: request.endsAt ?? notBefore + RECURRING_DEFAULT_SECONDS,
        recurring: { interval: request.interval, intervalCount: request.intervalCount, maxCharges: request.maxCharges },
      };
    }
  }
}

/** accountWindowTerms gives the terms of an account-wide window: one-time, with no card. */
export function accountWindowTerms(request: AccountWindowRequest, nowSeconds: number): WindowTerms {
  return {
    cardId: null,
    merchant: request.merchant,
    amountMinor: request.amountMinor,
    currency: request.currency,
    authorizationType: request.authorizationType,
    kind: 'one_time',
    notBefore: nowSeconds,
    notAfter: nowSeconds + request.ttlSeconds,
  };
}

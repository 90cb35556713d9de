/**
 * The pack's `request` member, both ways (docs/decisions.md §22): the daemon writes it from the
 * request it kept, and `verify` reads it back into that same value to recompute its SHA-256 — the
 * hash the window's and the approval's audit lines name — so a changed term cannot keep its hash.
 */
import type { WindowRequest } from '../core/authorization-request.js';
import { AUTHORIZATION_TYPES, isMember, type AuthorizationType } from '../core/model.js';
import { currencyDecimals, formatMinor, parseAmountText } from '../money/amount.js';
import { isoSeconds, parseIsoSeconds } from '../time/iso-time.js';
import { ap2TermsFromWire, ap2TermsWire, type Ap2TermsWire } from '../ap2/mandate-wire.js';

/** The request as a pack shows it: wire names, decimal amounts, ISO times. */
export interface RequestView {
  agent: string;
  kind: WindowRequest['kind'];
  card_id: string;
  merchant_name: string;
  amount: string;
  currency: string;
  authorization_type: AuthorizationType;
  reference: string | null;
  /** One-time and merchant verification: how long the window runs. */
  ttl_seconds?: number;
  /** Recurring: the schedule as asked (null where the caller left it to the default). */
  interval?: string;
  interval_count?: number;
  starts_at?: string | null;
  ends_at?: string | null;
  max_charges?: number | null;
  /** An AP2 mandate request: the merchant, items and agent key the mandates carry. */
  ap2?: Ap2TermsWire;
  received_at: string;
  sha256: string;
}

/** requestView writes the request a pack shows. */
export function requestView(request: WindowRequest, agent: string, receivedAtSeconds: number, requestSha256: string): RequestView {
  const base = {
    agent,
    kind: request.kind,
    card_id: request.cardId,
    merchant_name: request.merchant,
    amount: formatMinor(request.amountMinor, decimalsOf(request.currency)),
    currency: request.currency,
    authorization_type: request.kind === 'merchant_verification' || request.kind === 'ap2_mandate' ? ('ceiling' as const) : request.authorizationType,
    reference: request.reference ?? null,
  };
  const tail = { received_at: isoSeconds(receivedAtSeconds), sha256: requestSha256 };
  if (request.kind === 'ap2_mandate') return { ...base, ttl_seconds: request.ttlSeconds, ap2: ap2TermsWire(request), ...tail };
  if (request.kind !== 'recurring') return { ...base, ttl_seconds: request.ttlSeconds, ...tail };
  return {
    ...base,
    interval: request.interval,
    interval_count: request.intervalCount,
    starts_at: request.startsAt === null ? null : isoSeconds(request.startsAt),
    ends_at: request.endsAt === null ? null : isoSeconds(request.endsAt),
    max_charges: request.maxCharges,
    ...tail,
  };
}

/**
 * requestValue reads a pack's request back into the value the daemon hashed, or returns a
 * sentence naming what is malformed. Only the shape is checked here; verify compares the terms.
 */
export function requestValue(view: Record<string, unknown>): WindowRequest | string {
  const currency = view['currency'];
  if (typeof currency !== 'string') return 'request.currency is not text';
  if (typeof view['amount'] !== 'string') return 'request.amount is not decimal text';
  let amountMinor: number;
  try {
    amountMinor = parseAmountText(view['amount'], { param: 'amount', allowZero: true, decimals: decimalsOf(currency) });
  } catch {
    return 'request.amount is not decimal text';
  }
  if (typeof view['card_id'] !== 'string' || typeof view['merchant_name'] !== 'string') return 'request.card_id or request.merchant_name is not text';
  const reference = view['reference'];
  if (reference !== null && typeof reference !== 'string') return 'request.reference is neither text nor null';
  const base = { cardId: view['card_id'], merchant: view['merchant_name'], amountMinor, currency, ...(reference !== null && { reference }) };
  const type = view['authorization_type'];
  if (!isMember(AUTHORIZATION_TYPES, type)) return `request.authorization_type is none of ${AUTHORIZATION_TYPES.join(', ')}`;
  switch (view['kind']) {
    case 'one_time':
    case 'merchant_verification': {
      const ttl = view['ttl_seconds'];
      if (!Number.isSafeInteger(ttl) || (ttl as number) <= 0) return 'request.ttl_seconds is not a positive whole number';
      if (view['kind'] === 'merchant_verification') return type === 'ceiling' ? { kind: 'merchant_verification', ...base, ttlSeconds: ttl as number } : 'a merchant verification is always a ceiling';
      return { kind: 'one_time', ...base, authorizationType: type, ttlSeconds: ttl as number };
    }
    case 'ap2_mandate': {
      const ttl = view['ttl_seconds'];
      if (!Number.isSafeInteger(ttl) || (ttl as number) <= 0) return 'request.ttl_seconds is not a positive whole number';
      if (type !== 'ceiling') return 'an AP2 mandate is always a ceiling';
      const mandate = ap2TermsFromWire(view['ap2']);
      if (typeof mandate === 'string') return mandate;
      return { kind: 'ap2_mandate', ...base, ttlSeconds: ttl as number, mandate };
    }
    case 'recurring': {
      const interval = view['interval'];
      if (interval !== 'day' && interval !== 'week' && interval !== 'month' && interval !== 'year') return 'request.interval is not day, week, month or year';
      const count = view['interval_count'];
      const maxCharges = view['max_charges'];
      if (!Number.isSafeInteger(count)) return 'request.interval_count is not a whole number';
      if (maxCharges !== null && !Number.isSafeInteger(maxCharges)) return 'request.max_charges is neither a whole number nor null';
      const startsAt = optionalTime(view['starts_at']);
      const endsAt = optionalTime(view['ends_at']);
      if (startsAt === undefined || endsAt === undefined) return 'request.starts_at or request.ends_at is neither an ISO time nor null';
      return { kind: 'recurring', ...base, authorizationType: type, interval, intervalCount: count as number, startsAt, endsAt, maxCharges: maxCharges as number | null };
    }
    default:
      return 'request.kind is not one_time, merchant_verification, recurring or ap2_mandate';
  }
}

function optionalTime(value: unknown): number | null | undefined {
  if (value === null) return null;
  return typeof value === 'string' ? parseIsoSeconds(value) : undefined;
}

function decimalsOf(currency: string): number {
  return currencyDecimals(currency) ?? 2;
}

/**
 * Whether a signed window is exactly what was asked (shared/spec/evidence.md §3): the terms of
 * the window's payload against the request's, as core/authorization-request.ts's windowTerms
 * derives one from the other.
 */
import type { WindowRequest } from '../core/authorization-request.js';
import { RECURRING_DEFAULT_SECONDS, cardWindowKind, windowTerms } from '../core/authorization-request.js';
import { currencyDecimals, parseAmountText } from '../money/amount.js';

/** checkWindowTerms returns a sentence naming the first term that differs, or undefined. */
export function checkWindowTerms(payload: Record<string, unknown>, request: WindowRequest): string | undefined {
  if (payload['typ'] !== 'card_policy_window' || payload['card_id'] !== request.cardId) return "the window's card is not the request's";
  if (payload['merchant'] !== request.merchant) return "the window's merchant is not the request's";
  if (payload['currency'] !== request.currency) return "the window's currency is not the request's";
  if (amountMinor(payload['amount'], request.currency) !== request.amountMinor) return "the window's amount is not the request's";
  // An AP2 mandate's card window is a one-time ceiling window, or a recurring one (docs/ap2.md).
  if (payload['kind'] !== cardWindowKind(request)) return "the window's kind is not the request's";
  const type = request.kind === 'merchant_verification' || request.kind === 'ap2_mandate' ? 'ceiling' : request.authorizationType;
  if (payload['authorization_type'] !== type) return "the window's authorization_type is not the request's";
  if ((payload['reference'] ?? null) !== (request.reference ?? null)) return "the window's reference is not the request's";
  const notBefore = payload['not_before'];
  const notAfter = payload['not_after'];
  if (!Number.isSafeInteger(notBefore) || !Number.isSafeInteger(notAfter)) return "the window's times are not whole seconds";
  if (request.kind !== 'recurring') {
    if ((notAfter as number) - (notBefore as number) !== request.ttlSeconds) return "the window's time span is not the request's ttl_seconds";
    // A recurring mandate's schedule is derived from its recurrence and budget (src/ap2/recurrence.ts).
    const schedule = request.kind === 'ap2_mandate' ? windowTerms(request, 0).recurring : undefined;
    if (schedule !== undefined && (payload['interval'] !== schedule.interval || payload['interval_count'] !== schedule.intervalCount || payload['max_charges'] !== schedule.maxCharges)) return "the window's schedule is not the mandate's recurrence and budget";
    return undefined;
  }
  if (request.startsAt !== null && notBefore !== request.startsAt) return "the window's not_before is not the request's starts_at";
  const end = request.endsAt ?? (notBefore as number) + RECURRING_DEFAULT_SECONDS;
  if (notAfter !== end) return "the window's not_after is not the request's ends_at";
  if (payload['interval'] !== request.interval || payload['interval_count'] !== request.intervalCount) return "the window's interval is not the request's";
  if ((payload['max_charges'] ?? null) !== request.maxCharges) return "the window's max_charges is not the request's";
  return undefined;
}

function amountMinor(amount: unknown, currency: string): number | undefined {
  if (typeof amount !== 'string') return undefined;
  try {
    return parseAmountText(amount, { param: 'amount', allowZero: true, decimals: currencyDecimals(currency) ?? 2 });
  } catch {
    return undefined;
  }
}

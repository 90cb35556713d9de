/**
 * What a recurring authorization can cost within a budget's window (docs/decisions.md §17.2): one
 * charge per period, so a rolling window of W seconds holds at most ceil(W / period) charges,
 * and never more than the schedule's max_charges. A budget counts amount × that many, so the
 * request itself is decided against everything it allows inside the window, not one charge.
 */
import type { RecurringInterval } from '../core/model.js';

/**
 * The shortest each interval can be on the cloud's calendar: a month may have 28 days and a year
 * 365, so counting with these never undercounts the charges that fit.
 */
export const INTERVAL_SECONDS_MIN: Readonly<Record<RecurringInterval, number>> = {
  day: 86_400,
  week: 7 * 86_400,
  month: 28 * 86_400,
  year: 365 * 86_400,
};

/** A recurring authorization's charging schedule, as budgets need it. */
export interface ChargeSchedule {
  readonly periodSeconds: number;
  readonly maxCharges: number | null;
}

/** chargeSchedule describes `interval_count` × `interval` with at most maxCharges charges. */
export function chargeSchedule(interval: RecurringInterval, intervalCount: number, maxCharges: number | null): ChargeSchedule {
  const periodSeconds = INTERVAL_SECONDS_MIN[interval] * intervalCount;
  if (!Number.isSafeInteger(periodSeconds) || periodSeconds <= 0) throw new Error('chargeSchedule: the period must be a positive whole number of seconds');
  return { periodSeconds, maxCharges };
}

/** chargesWithin is how many charges fit in a window of windowSeconds: 1 for anything not recurring. */
export function chargesWithin(schedule: ChargeSchedule | undefined, windowSeconds: number): number {
  if (schedule === undefined) return 1;
  const fit = Math.ceil(windowSeconds / schedule.periodSeconds);
  return schedule.maxCharges === null ? fit : Math.max(1, Math.min(fit, schedule.maxCharges));
}

/** exposureWithin is amountMinor times the charges that fit in the window (a safe integer, or a thrown programmer error). */
export function exposureWithin(amountMinor: number, schedule: ChargeSchedule | undefined, windowSeconds: number): number {
  const exposure = amountMinor * chargesWithin(schedule, windowSeconds);
  if (!Number.isSafeInteger(exposure)) throw new Error('exposureWithin: exposure is not a safe integer');
  return exposure;
}

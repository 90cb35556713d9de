import type { RecurringInterval } from './state.js';

const DAY_SECONDS = 86_400;

/** utcDay names the UTC calendar day of a Unix time, `YYYY-MM-DD`; daily limits count per such day. */
export function utcDay(seconds: number): string {
  return new Date(seconds * 1000).toISOString().slice(0, 10);
}

/**
 * periodStart is the start of period `index` of a schedule beginning at start: days and weeks
 * are fixed lengths; months and years follow the UTC calendar, and a day that a month lacks
 * becomes that month's last day (a schedule from 31 January charges on 28 or 29 February).
 */
export function periodStart(start: number, interval: RecurringInterval, intervalCount: number, index: number): number {
  switch (interval) {
    case 'day':
      return start + index * intervalCount * DAY_SECONDS;
    case 'week':
      return start + index * intervalCount * 7 * DAY_SECONDS;
    case 'month':
      return addMonths(start, index * intervalCount);
    case 'year':
      return addMonths(start, index * intervalCount * 12);
  }
}

/** periodIndexAt returns the index of the period containing time t (0 before the schedule starts). */
export function periodIndexAt(start: number, interval: RecurringInterval, intervalCount: number, t: number): number {
  if (t < start) return 0;
  let index: number;
  if (interval === 'day' || interval === 'week') {
    const length = (interval === 'day' ? 1 : 7) * intervalCount * DAY_SECONDS;
    return Math.floor((t - start) / length);
  }
  const from = new Date(start * 1000);
  const to = new Date(t * 1000);
  const months = (to.getUTCFullYear() - from.getUTCFullYear()) * 12 + (to.getUTCMonth() - from.getUTCMonth());
  const step = interval === 'month' ? intervalCount : intervalCount * 12;
  index = Math.max(0, Math.floor(months / step));
  // The month estimate can be one off around the day-of-month; settle it against real starts.
  while (index > 0 && periodStart(start, interval, intervalCount, index) > t) index--;
  while (periodStart(start, interval, intervalCount, index + 1) <= t) index++;
  return index;
}

function addMonths(seconds: number, months: number): number {
  const date = new Date(seconds * 1000);
  const year = date.getUTCFullYear();
  const month = date.getUTCMonth() + months;
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  const day = Math.min(date.getUTCDate(), lastDay);
  const millis = Date.UTC(year, month, day, date.getUTCHours(), date.getUTCMinutes(), date.getUTCSeconds());
  return Math.floor(millis / 1000);
}

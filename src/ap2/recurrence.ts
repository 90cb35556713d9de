/**
 * AP2 v0.2's human-not-present mandates (`payment.agent_recurrence` and `payment.budget`,
 * shared/spec/ap2-mandates.md §6, docs/ap2.md): the frequencies AP2 names, the card window's period
 * for each, and how the total is held to the budget by the window's own count of charges. Pure.
 */
import type { RecurringInterval } from '../core/model.js';

/** AP2's frequencies a Latch mandate may carry (AP2's ON_DEMAND has no period a card window can hold). */
export const AP2_FREQUENCIES = ['DAILY', 'WEEKLY', 'BIWEEKLY', 'MONTHLY', 'QUARTERLY', 'ANNUALLY'] as const;
export type Ap2Frequency = (typeof AP2_FREQUENCIES)[number];

/** The card window's period for each frequency: at most one charge in each. */
export const FREQUENCY_PERIOD: Readonly<Record<Ap2Frequency, { interval: RecurringInterval; intervalCount: number }>> = {
  DAILY: { interval: 'day', intervalCount: 1 },
  WEEKLY: { interval: 'week', intervalCount: 1 },
  BIWEEKLY: { interval: 'week', intervalCount: 2 },
  MONTHLY: { interval: 'month', intervalCount: 1 },
  QUARTERLY: { interval: 'month', intervalCount: 3 },
  ANNUALLY: { interval: 'year', intervalCount: 1 },
};

/** The most occurrences a mandate may allow: /recurring's max_charges bound. */
export const MAX_OCCURRENCES_MAX = 1000;

/** A recurring mandate's terms, as the request carries them: the budget in minor units. */
export interface MandateRecurrence {
  frequency: Ap2Frequency;
  maxOccurrences: number | null;
  budgetMinor: number;
}

/** The recurring card window's schedule that backs a recurring mandate. */
export interface RecurringWindowSchedule {
  interval: RecurringInterval;
  intervalCount: number;
  maxCharges: number;
}

/**
 * recurringWindowOf is the card window's schedule: the frequency's period, and as many charges as
 * max_occurrences allows and the budget holds at the ceiling of amount_max each. The window is a
 * ceiling window, so each charge is at most amountMaxMinor and the total at most the budget, even
 * at a merchant that never checks the mandate. The request rules make the quotient at least 1.
 */
export function recurringWindowOf(recurrence: MandateRecurrence, amountMaxMinor: number): RecurringWindowSchedule {
  if (!Number.isSafeInteger(amountMaxMinor) || amountMaxMinor <= 0) throw new Error('recurringWindowOf: amount_max must be a positive integer of minor units');
  const budgetHolds = Math.floor(recurrence.budgetMinor / amountMaxMinor);
  const maxCharges = Math.min(recurrence.maxOccurrences ?? MAX_OCCURRENCES_MAX, budgetHolds, MAX_OCCURRENCES_MAX);
  if (maxCharges < 1) throw new Error('recurringWindowOf: a budget below amount_max reached the window (the request rules refuse it)');
  return { ...FREQUENCY_PERIOD[recurrence.frequency], maxCharges };
}

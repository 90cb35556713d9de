import assert from 'node:assert/strict';
import { test } from 'node:test';
import { chargeSchedule, chargesWithin, exposureWithin } from '../../src/policy/recurring-exposure.js';

const DAY = 86_400;

test('charges that fit a budget window: ceil(window / period), capped by max_charges; one for anything not recurring', () => {
  const cases: Array<[string, ReturnType<typeof chargeSchedule> | undefined, number, number]> = [
    ['one-time', undefined, 7 * DAY, 1],
    ['daily in a week', chargeSchedule('day', 1, null), 7 * DAY, 7],
    ['daily in a day', chargeSchedule('day', 1, null), DAY, 1],
    ['every 2 days in a week', chargeSchedule('day', 2, null), 7 * DAY, 4],
    ['weekly in a day', chargeSchedule('week', 1, null), DAY, 1],
    ['monthly in 30 days (a month may be 28 days)', chargeSchedule('month', 1, null), 30 * DAY, 2],
    ['daily capped at 3', chargeSchedule('day', 1, 3), 30 * DAY, 3],
    ['daily capped at 1', chargeSchedule('day', 1, 1), 7 * DAY, 1],
  ];
  for (const [name, schedule, windowSeconds, charges] of cases) assert.equal(chargesWithin(schedule, windowSeconds), charges, name);
  assert.equal(exposureWithin(1_500, chargeSchedule('day', 1, null), 7 * DAY), 10_500);
});

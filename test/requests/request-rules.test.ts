import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LatchError } from '../../src/errors/latch-error.js';
import { validateBody } from '../../src/validate/schema.js';
import { parseJson } from '../../src/json/parse-json.js';
import {
  RECURRING_SPAN_SECONDS_MAX,
  RECURRING_START_AHEAD_SECONDS_MAX,
  RECURRING_START_SKEW_SECONDS,
  checkRecurringSchedule,
} from '../../src/core/authorization-request.js';
import { authorizeRules, merchantBindRules, recurringRules } from '../../src/requests/request-rules.js';

const NOW = 1_800_000_000;
const refusedWith = (param: string) => (error: unknown) => error instanceof LatchError && error.code === 'invalid_request' && error.param === param;

test('recurring schedules: the edges of every bound', () => {
  const accepted: Array<[number | undefined, number | undefined]> = [
    [undefined, undefined],
    [NOW - RECURRING_START_SKEW_SECONDS, undefined],
    [NOW + RECURRING_START_AHEAD_SECONDS_MAX, undefined],
    [undefined, NOW + 1],
    [NOW, NOW + RECURRING_SPAN_SECONDS_MAX],
  ];
  for (const [startsAt, endsAt] of accepted) assert.doesNotThrow(() => checkRecurringSchedule(startsAt, endsAt, NOW), `${startsAt} ${endsAt}`);
  const refused: Array<[number | undefined, number | undefined, string]> = [
    [NOW - RECURRING_START_SKEW_SECONDS - 1, undefined, 'starts_at'],
    [NOW + RECURRING_START_AHEAD_SECONDS_MAX + 1, undefined, 'starts_at'],
    [undefined, NOW, 'ends_at'],
    [NOW + 100, NOW + 100, 'ends_at'],
    [NOW, NOW + RECURRING_SPAN_SECONDS_MAX + 1, 'ends_at'],
  ];
  for (const [startsAt, endsAt, param] of refused) assert.throws(() => checkRecurringSchedule(startsAt, endsAt, NOW), refusedWith(param), `${startsAt} ${endsAt}`);
});

/** body parses JSON text as the front door does. */
const body = (text: string) => parseJson(text);

test('defaults: authorize (USD, exact, 30), merchant-bind (0, 10), recurring (ceiling, 1)', () => {
  const authorize = validateBody(body('{"card_id":"card_a1","amount":12.5,"merchant_name":"Shop.Example.com"}'), authorizeRules);
  assert.deepEqual(authorize, { card_id: 'card_a1', amount: 1250, merchant_name: 'shop.example.com', currency: 'USD', authorization_type: 'exact', ttl_minutes: 30, reference: undefined });
  const bind = validateBody(body('{"card_id":"card_a1","merchant_name":"shop.example.com"}'), merchantBindRules);
  assert.equal(bind.amount, 0);
  assert.equal(bind.ttl_minutes, 10);
  const recurring = validateBody(body('{"card_id":"card_a1","merchant_name":"shop.example.com","amount":"9.99","interval":"month"}'), recurringRules);
  assert.equal(recurring.authorization_type, 'ceiling');
  assert.equal(recurring.interval_count, 1);
  assert.equal(recurring.amount, 999);
});

test('bounds: ttl_minutes 1..1440, merchant verification at most 1.00, amount at most 10,000.00', () => {
  const authorize = (fields: string) => () => validateBody(body(`{"card_id":"card_a1","amount":1,"merchant_name":"shop.example.com"${fields}}`), authorizeRules);
  for (const ttl of [1, 1440]) assert.doesNotThrow(authorize(`,"ttl_minutes":${ttl}`));
  for (const ttl of [0, 1441, -1]) assert.throws(authorize(`,"ttl_minutes":${ttl}`), refusedWith('ttl_minutes'));
  assert.doesNotThrow(() => validateBody(body('{"card_id":"card_a1","amount":10000,"merchant_name":"shop.example.com"}'), authorizeRules));
  assert.throws(() => validateBody(body('{"card_id":"card_a1","amount":10000.01,"merchant_name":"shop.example.com"}'), authorizeRules), refusedWith('amount'));
  const bind = (amount: string) => () => validateBody(body(`{"card_id":"card_a1","merchant_name":"shop.example.com","amount":${amount}}`), merchantBindRules);
  for (const amount of ['0', '1', '"1.00"', '0.5']) assert.doesNotThrow(bind(amount), amount);
  for (const amount of ['1.01', '-0.01', '"abc"']) assert.throws(bind(amount), refusedWith('amount'), amount);
});

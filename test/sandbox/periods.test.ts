import { test } from 'node:test';
import assert from 'node:assert/strict';
import { periodIndexAt, periodStart, utcDay } from '../../src/sandbox/ledger/periods.js';
import type { RecurringInterval } from '../../src/sandbox/ledger/state.js';

const at = (iso: string): number => Date.parse(iso) / 1000;

test('periodStart: fixed days and weeks, calendar months and years with the day clamped', () => {
  const cases: Array<[string, RecurringInterval, number, number, string]> = [
    ['2030-01-15T12:00:00Z', 'day', 1, 3, '2030-01-18T12:00:00Z'],
    ['2030-01-15T12:00:00Z', 'day', 2, 3, '2030-01-21T12:00:00Z'],
    ['2030-01-15T12:00:00Z', 'week', 1, 2, '2030-01-29T12:00:00Z'],
    ['2030-01-31T08:00:00Z', 'month', 1, 1, '2030-02-28T08:00:00Z'],
    ['2032-01-31T08:00:00Z', 'month', 1, 1, '2032-02-29T08:00:00Z'],
    ['2030-01-31T08:00:00Z', 'month', 1, 2, '2030-03-31T08:00:00Z'],
    ['2030-11-30T00:00:00Z', 'month', 3, 1, '2031-02-28T00:00:00Z'],
    ['2032-02-29T00:00:00Z', 'year', 1, 1, '2033-02-28T00:00:00Z'],
    ['2032-02-29T00:00:00Z', 'year', 4, 1, '2036-02-29T00:00:00Z'],
  ];
  for (const [start, interval, count, index, expected] of cases) {
    assert.equal(new Date(periodStart(at(start), interval, count, index) * 1000).toISOString().replace('.000Z', 'Z'), expected, `${start} ${interval}x${count} #${index}`);
  }
});

test('periodIndexAt: the period containing t, boundaries included at the start', () => {
  const start = at('2030-01-31T08:00:00Z');
  const cases: Array<[RecurringInterval, number, string, number]> = [
    ['month', 1, '2030-01-01T00:00:00Z', 0],
    ['month', 1, '2030-01-31T08:00:00Z', 0],
    ['month', 1, '2030-02-28T07:59:59Z', 0],
    ['month', 1, '2030-02-28T08:00:00Z', 1],
    ['month', 1, '2030-03-30T00:00:00Z', 1],
    ['month', 1, '2030-03-31T08:00:00Z', 2],
    ['month', 2, '2030-03-31T08:00:00Z', 1],
    ['year', 1, '2031-01-31T07:00:00Z', 0],
    ['year', 1, '2031-01-31T08:00:00Z', 1],
    ['day', 1, '2030-02-01T07:59:59Z', 0],
    ['day', 1, '2030-02-01T08:00:00Z', 1],
    ['week', 1, '2030-02-14T08:00:00Z', 2],
  ];
  for (const [interval, count, t, expected] of cases) {
    assert.equal(periodIndexAt(start, interval, count, at(t)), expected, `${interval}x${count} at ${t}`);
  }
});

test('periodIndexAt agrees with periodStart over many months', () => {
  const start = at('2030-01-29T23:30:00Z');
  for (let index = 0; index < 60; index++) {
    const begin = periodStart(start, 'month', 1, index);
    assert.equal(periodIndexAt(start, 'month', 1, begin), index);
    assert.equal(periodIndexAt(start, 'month', 1, begin - 1), Math.max(0, index - 1));
  }
});

test('utcDay names the UTC calendar day', () => {
  assert.equal(utcDay(at('2030-01-15T23:59:59Z')), '2030-01-15');
  assert.equal(utcDay(at('2030-01-16T00:00:00Z')), '2030-01-16');
});

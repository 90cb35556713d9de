import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseTtlString, TTL_MINUTES_MAX, TTL_MINUTES_MIN } from '../../src/validate/ttl.js';
import { LatchError } from '../../src/errors/latch-error.js';

const valid: Array<[string, number]> = [
  ['60s', 60],
  ['61s', 61],
  ['86400s', 86_400],
  ['1m', 60],
  ['30m', 1800],
  ['1440m', 86_400],
  ['1h', 3600],
  ['24h', 86_400],
];
for (const [text, seconds] of valid) {
  test(`ttl ${text} is ${seconds} s`, () => {
    assert.equal(parseTtlString(text), seconds);
  });
}

const invalid = [
  '', '30', '0m', '0s', '0h', '-5m', '+5m', '05m', '1.5m', '30 m', ' 30m', '30m ', '30M', '30S', '2H', 'm', '30',
  '30mm', '30min', '30d', '59s', '86401s', '1441m', '25h', '99999h', '9999999h', '1e3s', '３０m', '30\u200bm', '0x1Eh',
  'PT30M', '30m\n', '١m',
];
for (const text of invalid) {
  test(`ttl refused: ${JSON.stringify(text)}`, () => {
    assert.throws(() => parseTtlString(text, 'ttl'), (error: unknown) => {
      assert.ok(error instanceof LatchError);
      assert.equal(error.code, 'invalid_request');
      assert.equal(error.param, 'ttl');
      return true;
    });
  });
}

test('the param name is passed through', () => {
  assert.throws(() => parseTtlString('x', 'lifetime'), (error: unknown) => error instanceof LatchError && error.param === 'lifetime');
});

test('Variant A\'s ttl_minutes bounds are the bounds of parseTtlString', () => {
  assert.equal(parseTtlString(`${TTL_MINUTES_MIN}m`), TTL_MINUTES_MIN * 60);
  assert.equal(parseTtlString(`${TTL_MINUTES_MAX}m`), TTL_MINUTES_MAX * 60);
  assert.throws(() => parseTtlString(`${TTL_MINUTES_MAX + 1}m`), LatchError);
});

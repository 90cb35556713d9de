import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  AUTHORIZATION_AMOUNT_MAX_MINOR,
  CURRENCY_DECIMALS,
  currencyDecimals,
  formatMinor,
  minorToJsonNumber,
  parseAmountText,
} from '../../src/money/amount.js';
import { LatchError } from '../../src/errors/latch-error.js';

const parsed: Array<[string, number, { decimals?: number; allowZero?: boolean; maxMinor?: number }?]> = [
  ['12.50', 1250],
  ['12.5', 1250],
  ['12', 1200],
  ['0.01', 1],
  ['0.1', 10],
  ['1.00', 100],
  ['10000.00', 1_000_000, { maxMinor: AUTHORIZATION_AMOUNT_MAX_MINOR }],
  ['0', 0, { allowZero: true }],
  ['0.00', 0, { allowZero: true }],
  ['1', 1, { decimals: 0 }],
  ['1.23456789', 123_456_789, { decimals: 8 }],
  ['9999999999999', 999_999_999_999_900],
  ['9999999999999.99', 999_999_999_999_999],
  ['0.29', 29],
  ['1.15', 115],
  ['4.35', 435],
];
for (const [text, minor, options] of parsed) {
  test(`parseAmountText ${text} → ${minor}`, () => {
    assert.equal(parseAmountText(text, { param: 'amount', ...options }), minor);
  });
}

const refused: Array<[string, string, { decimals?: number; allowZero?: boolean; maxMinor?: number }?]> = [
  ['empty', ''],
  ['zero', '0'],
  ['zero with decimals', '0.00'],
  ['negative', '-1'],
  ['negative zero', '-0'],
  ['plus sign', '+1'],
  ['exponent', '1e2'],
  ['upper-case exponent', '1E2'],
  ['exponent with fraction', '1.5e1'],
  ['NaN', 'NaN'],
  ['Infinity', 'Infinity'],
  ['leading zero', '01'],
  ['leading zeros before point', '00.5'],
  ['no whole part', '.5'],
  ['no fraction digits', '1.'],
  ['three decimals', '1.005'],
  ['three decimals with trailing zero', '1.500'],
  ['fraction with zero-decimal currency', '1.0', { decimals: 0 }],
  ['spaces', ' 1'],
  ['trailing space', '1 '],
  ['comma decimal', '1,50'],
  ['thousands separator', '1,000.00'],
  ['hex', '0x10'],
  ['underscore', '1_000'],
  ['full-width digits', '１２'],
  ['Arabic-Indic digits', '١٢'],
  ['above maximum', '10000.01', { maxMinor: AUTHORIZATION_AMOUNT_MAX_MINOR }],
  ['14 whole digits', '10000000000000'],
  ['unsafe with many decimals', '9999999999999.99999999', { decimals: 8 }],
  ['newline', '1\n'],
];
for (const [name, text, options] of refused) {
  test(`parseAmountText refuses ${name}`, () => {
    assert.throws(() => parseAmountText(text, { param: 'price', ...options }), (error: unknown) => {
      assert.ok(error instanceof LatchError);
      assert.equal(error.code, 'invalid_request');
      assert.equal(error.param, 'price');
      return true;
    });
  });
}

test('the maximum is inclusive and named in the message', () => {
  assert.equal(parseAmountText('1.00', { param: 'amount', maxMinor: 100 }), 100);
  assert.throws(() => parseAmountText('1.01', { param: 'amount', maxMinor: 100 }), /at most 1\.00/);
});

const formatted: Array<[number, number, string]> = [
  [1250, 2, '12.50'],
  [1, 2, '0.01'],
  [10, 2, '0.10'],
  [0, 2, '0.00'],
  [100, 2, '1.00'],
  [-5, 2, '-0.05'],
  [-1250, 2, '-12.50'],
  [1_000_000, 2, '10000.00'],
  [42, 0, '42'],
  [0, 0, '0'],
  [123_456_789, 8, '1.23456789'],
  [Number.MAX_SAFE_INTEGER, 2, '90071992547409.91'],
];
for (const [minor, decimals, text] of formatted) {
  test(`formatMinor(${minor}, ${decimals}) → ${text}`, () => {
    assert.equal(formatMinor(minor, decimals), text);
  });
}

test('formatMinor refuses values that are not safe integers', () => {
  for (const bad of [1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53]) assert.throws(() => formatMinor(bad));
});

test('parse and format round-trip on every cent from 0.01 to 100.00', () => {
  for (let minor = 1; minor <= 10_000; minor++) {
    const text = formatMinor(minor);
    assert.equal(parseAmountText(text, { param: 'amount' }), minor);
  }
});

test('minorToJsonNumber writes the exact decimal as a JSON number', () => {
  const cases: Array<[number, string]> = [
    [1250, '12.5'],
    [1, '0.01'],
    [10, '0.1'],
    [29, '0.29'],
    [100, '1'],
    [1_000_000, '10000'],
    [0, '0'],
  ];
  for (const [minor, json] of cases) assert.equal(JSON.stringify(minorToJsonNumber(minor)), json);
});

test('currencyDecimals knows USD and USDT and nothing inherited', () => {
  assert.equal(currencyDecimals('USD'), 2);
  assert.equal(currencyDecimals('USDT'), 2);
  assert.equal(currencyDecimals('EUR'), undefined);
  assert.equal(currencyDecimals('usd'), undefined);
  assert.equal(currencyDecimals('toString'), undefined);
  assert.equal(currencyDecimals('__proto__'), undefined);
  assert.deepEqual(Object.keys(CURRENCY_DECIMALS).sort(), ['USD', 'USDT']);
});

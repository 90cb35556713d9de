import assert from 'node:assert/strict';
import { test } from 'node:test';
import { exactDecimal, NUMBER_EXPONENT_MAX, NUMBER_TEXT_CHARS_MAX, numberTextProblem } from '../../src/json/exact-decimal.js';

const VISA = '4111111111111111';

const cases: Array<[string, { negative: boolean; integer: string; fraction: string }]> = [
  ['0', { negative: false, integer: '', fraction: '' }],
  ['-0', { negative: true, integer: '', fraction: '' }],
  ['12.50', { negative: false, integer: '12', fraction: '5' }],
  ['-1.5E-7', { negative: true, integer: '', fraction: '00000015' }],
  ['1e3', { negative: false, integer: '1000', fraction: '' }],
  ['4.111111111111111e15', { negative: false, integer: VISA, fraction: '' }],
  [`${VISA}${'0'.repeat(65)}e-65`, { negative: false, integer: VISA, fraction: '' }],
  [`${VISA}${'0'.repeat(300)}E-300`, { negative: false, integer: VISA, fraction: '' }],
  [`0.${'0'.repeat(64)}${VISA}e+80`, { negative: false, integer: VISA, fraction: '' }],
  [`0.${'0'.repeat(54)}${VISA}${'0'.repeat(20)}e70`, { negative: false, integer: VISA, fraction: '' }],
  [`00${VISA}.5e-2`, { negative: false, integer: VISA.slice(0, 14), fraction: '115' }],
  ['1e-400', { negative: false, integer: '', fraction: `${'0'.repeat(399)}1` }],
];
for (const [text, expected] of cases) {
  test(`exact value of ${text.length > 40 ? `${text.slice(0, 20)}…${text.slice(-8)}` : text}`, () => {
    assert.deepEqual(exactDecimal(text), expected);
  });
}

test('bounds: text over the character limit and exponents beyond the limit have no exact value here', () => {
  assert.equal(NUMBER_EXPONENT_MAX, 400);
  for (const text of [`1${'0'.repeat(NUMBER_TEXT_CHARS_MAX)}`, '1e401', '1e-401', '4e999999999', '1e00000000000000000000000001000']) {
    assert.notEqual(numberTextProblem(text), undefined, text.slice(0, 30));
    assert.equal(exactDecimal(text), undefined);
  }
  for (const text of ['1e400', '1e-0000400', `1${'0'.repeat(NUMBER_TEXT_CHARS_MAX - 1)}`]) assert.equal(numberTextProblem(text), undefined, text.slice(0, 30));
});

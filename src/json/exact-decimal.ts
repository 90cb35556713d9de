/**
 * Exact decimal values of JSON number text, without binary floating point: the exponent is
 * applied by moving the decimal point on the digit string. Work is bounded by refusing number
 * text longer than NUMBER_TEXT_CHARS_MAX and exponents beyond ±NUMBER_EXPONENT_MAX, so the
 * expanded value has at most about 800 digits.
 */

/** Longest JSON number text accepted; real amounts and ids are a few dozen characters. */
export const NUMBER_TEXT_CHARS_MAX = 400;
/** Largest exponent magnitude accepted; doubles end near 1e308, and nothing Latch reads goes near that. */
export const NUMBER_EXPONENT_MAX = 400;

/** The exact value of a number as digit strings: `-12.5e1` → { negative, integer: '125', fraction: '' }. */
export interface ExactDecimal {
  negative: boolean;
  /** Integer digits without leading zeros; '' for a value below 1. */
  integer: string;
  /** Fraction digits without trailing zeros; '' for an integer. */
  fraction: string;
}

const NUMBER_TEXT = /^(-?)([0-9]+)(?:\.([0-9]+))?(?:[eE]([+-]?)([0-9]+))?$/;

/**
 * numberTextProblem says why number text is outside the bounds above, or returns undefined when
 * it is within them. The text is assumed to be JSON number syntax.
 */
export function numberTextProblem(text: string): string | undefined {
  if (text.length > NUMBER_TEXT_CHARS_MAX) return `a number longer than ${NUMBER_TEXT_CHARS_MAX} characters`;
  const e = text.search(/[eE]/);
  if (e === -1) return undefined;
  const exponent = text.slice(e + 1).replace(/^[+-]/, '').replace(/^0+/, '');
  if (exponent.length > 3 || Number(exponent) > NUMBER_EXPONENT_MAX) return `an exponent beyond ±${NUMBER_EXPONENT_MAX}`;
  return undefined;
}

/**
 * exactDecimal returns the exact value of JSON number text, or undefined when the text is not a
 * number or is outside the bounds (see numberTextProblem).
 */
export function exactDecimal(text: string): ExactDecimal | undefined {
  if (numberTextProblem(text) !== undefined) return undefined;
  const match = NUMBER_TEXT.exec(text);
  if (match === null) return undefined;
  const whole = match[2] as string;
  const digits = whole + (match[3] ?? '');
  const exponent = Number(match[5] ?? '0') * (match[4] === '-' ? -1 : 1);
  // The point sits after `point` digits of `digits`; it may lie before or after them.
  const point = whole.length + exponent;
  let integer: string;
  let fraction: string;
  if (point <= 0) {
    integer = '';
    fraction = '0'.repeat(-point) + digits;
  } else if (point >= digits.length) {
    integer = digits + '0'.repeat(point - digits.length);
    fraction = '';
  } else {
    integer = digits.slice(0, point);
    fraction = digits.slice(point);
  }
  return { negative: match[1] === '-', integer: integer.replace(/^0+/, ''), fraction: fraction.replace(/0+$/, '') };
}

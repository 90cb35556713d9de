import { invalidRequest } from '../errors/latch-error.js';
import { JsonNumber, type JsonValue } from '../json/parse-json.js';
import { AUTHORIZATION_AMOUNT_MAX_MINOR, formatMinor, parseAmountText } from '../money/amount.js';
import { presenceOf, wrongType, type FieldRule, type PresenceOf, type PresenceOptions } from './field-rule.js';
import type { RuleJsonSchema } from './rule-json-schema.js';

/** Integer text is plain digits: no exponent, fraction, leading zeros or `+`; `-` only when signed. */
const UNSIGNED_INTEGER_TEXT = /^(?:0|[1-9][0-9]{0,14})$/;
const SIGNED_INTEGER_TEXT = /^-?(?:0|[1-9][0-9]{0,14})$/;

export interface IntOptions extends PresenceOptions<number> {
  /** Smallest value, inclusive. */
  min?: number;
  /** Largest value, inclusive. */
  max?: number;
  /** Accept a leading `-`. Off by default. */
  signed?: boolean;
}

/**
 * int is an integer field. A JSON number counts only when its text is a plain integer (so `30.0`,
 * `3e1` and `030` are refused); a query value follows the same rule. Values are bounded by
 * min/max and by 15 digits, so every result is a safe integer.
 */
export function int<const O extends IntOptions = {}>(options: O = {} as O): FieldRule<number, PresenceOf<O>> {
  const fromText = (text: string, param: string): number => parseIntegerText(text, param, options);
  return {
    presence: presenceOf(options) as PresenceOf<O>,
    defaultValue: options.default,
    fromJson(value: JsonValue, param: string): number {
      if (!(value instanceof JsonNumber)) throw wrongType(param, 'an integer');
      return fromText(value.text, param);
    },
    fromQuery: fromText,
    jsonSchema: integerJsonSchema(options),
  };
}

/** The largest value 15 digits can write; int never accepts more. */
const INTEGER_15_DIGITS_MAX = 999_999_999_999_999;

function integerJsonSchema(options: IntOptions): RuleJsonSchema {
  const minimum = options.min ?? (options.signed === true ? -INTEGER_15_DIGITS_MAX : 0);
  return { type: 'integer', minimum, maximum: options.max ?? INTEGER_15_DIGITS_MAX };
}

function parseIntegerText(text: string, param: string, options: IntOptions): number {
  const pattern = options.signed === true ? SIGNED_INTEGER_TEXT : UNSIGNED_INTEGER_TEXT;
  // "-0" is an integer in JSON's grammar but not a value anyone means; refuse it.
  if (!pattern.test(text) || text === '-0') throw invalidRequest(param, `${param} must be ${describeInteger(options)}.`);
  const value = Number(text);
  if ((options.min !== undefined && value < options.min) || (options.max !== undefined && value > options.max)) {
    throw invalidRequest(param, `${param} must be ${describeInteger(options)}.`);
  }
  return value;
}

function describeInteger(options: IntOptions): string {
  const { min, max } = options;
  if (min !== undefined && max !== undefined) return `an integer from ${min} to ${max}`;
  if (min !== undefined) return `an integer of at least ${min}`;
  if (max !== undefined) return `an integer of at most ${max}`;
  return options.signed === true ? 'an integer' : 'a non-negative integer';
}

export interface AmountOptions extends PresenceOptions<number> {
  /** Accept zero (merchant verification). Off by default. */
  allowZero?: boolean;
  /** Largest amount in minor units; AUTHORIZATION_AMOUNT_MAX_MINOR (10,000.00) by default. */
  maxMinor?: number;
  /** Decimal places of the currency; 2 by default. */
  decimals?: number;
}

/**
 * amount is a money field (docs/decisions.md §3): a JSON number or a decimal string, parsed exactly from
 * its text into integer minor units by parseAmountText. NaN, Infinity, exponents, signs, zero
 * (unless allowZero), extra decimals and amounts above maxMinor are refused. A default is given
 * in minor units.
 */
export function amount<const O extends AmountOptions = {}>(options: O = {} as O): FieldRule<number, PresenceOf<O>> {
  const limits = { decimals: options.decimals ?? 2, allowZero: options.allowZero === true, maxMinor: options.maxMinor ?? AUTHORIZATION_AMOUNT_MAX_MINOR };
  const fromText = (text: string, param: string): number => parseAmountText(text, { param, ...limits });
  return {
    presence: presenceOf(options) as PresenceOf<O>,
    defaultValue: options.default,
    fromJson(value: JsonValue, param: string): number {
      if (value instanceof JsonNumber || typeof value === 'string') return fromText(typeof value === 'string' ? value : value.text, param);
      throw wrongType(param, 'an amount: a JSON number or a decimal string like "12.50"');
    },
    fromQuery: fromText,
    jsonSchema: amountJsonSchema(limits),
  };
}

/**
 * amountJsonSchema describes an amount: decimal text with at most `decimals` places, no more
 * whole digits than the maximum has, and not zero unless allowed; a JSON number within the
 * bounds. It cannot say that text stays under the maximum, nor that a number has no exponent or
 * extra decimals; parseAmountText refuses those.
 */
/**
 * notAbove is a lookahead refusing decimal text greater than maximumText (e.g. "1.00"), so that a
 * text amount's pattern states the same bound the number form's `maximum` does: a whole part of
 * the maximum's length that is larger at its first differing digit, or the same whole part with a
 * larger fraction. (Longer whole parts are already refused by the digit count.)
 */
function notAbove(maximumText: string): string {
  const [whole, fraction = ''] = maximumText.split('.') as [string, string?];
  const digitAbove = (digit: string) => (digit === '9' ? undefined : `[${Number(digit) + 1}-9]`);
  const larger: string[] = [];
  for (let i = 0; i < whole.length; i++) {
    const above = digitAbove(whole[i] as string);
    if (above !== undefined) larger.push(`${whole.slice(0, i)}${above}[0-9]{${whole.length - i - 1}}(?:\\.[0-9]*)?$`);
  }
  for (let j = 0; j < fraction.length; j++) {
    const above = digitAbove(fraction[j] as string);
    if (above !== undefined) larger.push(`${whole}\\.${fraction.slice(0, j)}${above}[0-9]*$`);
  }
  return larger.length === 0 ? '' : `(?!(?:${larger.join('|')}))`;
}

function amountJsonSchema(limits: { decimals: number; allowZero: boolean; maxMinor: number }): RuleJsonSchema {
  const maximumText = formatMinor(limits.maxMinor, limits.decimals);
  const wholeDigitsMax = (maximumText.split('.')[0] as string).length;
  const fraction = limits.decimals === 0 ? '' : `(?:\\.[0-9]{1,${limits.decimals}})?`;
  const notZero = limits.allowZero ? '' : '(?!0(?:\\.0+)?$)';
  const wholeDigits = wholeDigitsMax === 1 ? '[1-9]' : `[1-9][0-9]{0,${wholeDigitsMax - 1}}`;
  return {
    type: ['string', 'number'],
    pattern: `^${notZero}${notAbove(maximumText)}(?:0|${wholeDigits})${fraction}$`,
    ...(limits.allowZero ? { minimum: 0 } : { exclusiveMinimum: 0 }),
    maximum: Number(maximumText),
  };
}

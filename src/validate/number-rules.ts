import { invalidRequest } from '../errors/latch-error.js';
import { JsonNumber, type JsonValue } from '../json/parse-json.js';
import { AUTHORIZATION_AMOUNT_MAX_MINOR, parseAmountText } from '../money/amount.js';
import { presenceOf, wrongType, type FieldRule, type PresenceOf, type PresenceOptions } from './field-rule.js';

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
  };
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
 * amount is a money field (decisions §3): a JSON number or a decimal string, parsed exactly from
 * its text into integer minor units by parseAmountText. NaN, Infinity, exponents, signs, zero
 * (unless allowZero), extra decimals and amounts above maxMinor are refused. A default is given
 * in minor units.
 */
export function amount<const O extends AmountOptions = {}>(options: O = {} as O): FieldRule<number, PresenceOf<O>> {
  const fromText = (text: string, param: string): number =>
    parseAmountText(text, {
      param,
      decimals: options.decimals ?? 2,
      allowZero: options.allowZero === true,
      maxMinor: options.maxMinor ?? AUTHORIZATION_AMOUNT_MAX_MINOR,
    });
  return {
    presence: presenceOf(options) as PresenceOf<O>,
    defaultValue: options.default,
    fromJson(value: JsonValue, param: string): number {
      if (value instanceof JsonNumber || typeof value === 'string') return fromText(typeof value === 'string' ? value : value.text, param);
      throw wrongType(param, 'an amount: a JSON number or a decimal string like "12.50"');
    },
    fromQuery: fromText,
  };
}

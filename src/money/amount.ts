import { invalidRequest } from '../errors/latch-error.js';

/** Decimal places of the currencies this product handles (docs/decisions.md §3). */
export const CURRENCY_DECIMALS: Readonly<Record<string, number>> = { USD: 2, USDT: 2 };

/** The largest amount of one authorization, in minor units: 10,000.00 (docs/decisions.md §13). */
export const AUTHORIZATION_AMOUNT_MAX_MINOR = 1_000_000;

/** Whole-unit digits accepted before the decimal point; bounds every parsed amount well below 2^53. */
const INTEGER_DIGITS_MAX = 13;

const DECIMAL_TEXT = /^(0|[1-9][0-9]*)(?:\.([0-9]+))?$/;

export interface ParseAmountOptions {
  /** The field name reported in `param` on failure. */
  param: string;
  /** Decimal places allowed; defaults to 2. */
  decimals?: number;
  /** Zero is refused unless allowed (merchant verification). */
  allowZero?: boolean;
  /** Upper bound in minor units, inclusive. */
  maxMinor?: number;
}

/**
 * parseAmountText turns exact decimal text ("12.5", "0.01", "100") into integer minor units.
 * It refuses signs, exponents, NaN, Infinity, too many decimals and out-of-bound values, so no
 * binary floating point value ever stands for money inside Latch.
 */
export function parseAmountText(text: string, options: ParseAmountOptions): number {
  const decimals = options.decimals ?? 2;
  const match = DECIMAL_TEXT.exec(text);
  if (match === null) {
    throw invalidRequest(options.param, `${options.param} must be a positive decimal amount like 12.50 (no sign, exponent or spaces).`);
  }
  const whole = match[1] ?? '0';
  const fraction = match[2] ?? '';
  if (whole.length > INTEGER_DIGITS_MAX) {
    throw invalidRequest(options.param, `${options.param} is too large.`);
  }
  if (fraction.length > decimals) {
    throw invalidRequest(options.param, `${options.param} has more than ${decimals} decimal places.`);
  }
  const minor = Number(whole) * 10 ** decimals + Number(fraction.padEnd(decimals, '0') || '0');
  if (!Number.isSafeInteger(minor)) {
    throw invalidRequest(options.param, `${options.param} is too large.`);
  }
  if (minor === 0 && options.allowZero !== true) {
    throw invalidRequest(options.param, `${options.param} must be greater than zero.`);
  }
  if (options.maxMinor !== undefined && minor > options.maxMinor) {
    throw invalidRequest(options.param, `${options.param} must be at most ${formatMinor(options.maxMinor, decimals)}.`);
  }
  return minor;
}

/** formatMinor writes integer minor units as decimal text with exactly `decimals` places: 1250 → "12.50". */
export function formatMinor(minor: number, decimals = 2): string {
  if (!Number.isSafeInteger(minor)) throw new Error('formatMinor: not a safe integer');
  const sign = minor < 0 ? '-' : '';
  const digits = String(Math.abs(minor)).padStart(decimals + 1, '0');
  if (decimals === 0) return sign + digits;
  return `${sign}${digits.slice(0, -decimals)}.${digits.slice(-decimals)}`;
}

/**
 * minorToJsonNumber gives the JSON number Variant B writes for an amount: 1250 → 12.5. It goes
 * through exact decimal text; JavaScript prints the shortest text that round-trips, so the JSON
 * carries exactly the decimal value.
 */
export function minorToJsonNumber(minor: number, decimals = 2): number {
  return Number(formatMinor(minor, decimals));
}

/** currencyDecimals returns the decimals of a supported currency, or undefined. */
export function currencyDecimals(currency: string): number | undefined {
  return Object.hasOwn(CURRENCY_DECIMALS, currency) ? CURRENCY_DECIMALS[currency] : undefined;
}

import { luhnValid } from './luhn.js';

/** A payment card number (PAN) has 13 to 19 digits (ISO/IEC 7812). */
const PAN_DIGITS_MIN = 13;
const PAN_DIGITS_MAX = 19;

/** Unicode decimal digits come in contiguous blocks of ten; the longest run of blocks is 50. */
const DIGIT_BLOCK_RUN_MAX = 60;

/** At most this many separator characters between two groups (`4111 - 1111` has three). */
const SEPARATOR_RUN_MAX = 3;

const UNICODE_DIGIT = /^\p{Nd}$/u;
/** ASCII characters that may stand between the digit groups of a written card number. */
const ASCII_SEPARATORS = ' \t\n\r\v\f-._/,\\';
/**
 * Other characters that may stand between digit groups: every Unicode space, line and paragraph
 * separator, dash, control, the minus sign, dots and bullets used as group marks, and blank-looking
 * symbols (the braille blank).
 */
const SEPARATOR = /^[\p{Z}\p{Pd}\p{Cc}\u2212\u00b7\u2022\u2024\u2027\u2219\u22c5\u30fb\uff65\u2800]$/u;
/** Invisible characters (format controls, combining marks, default-ignorables such as Hangul fillers) that must not hide a card number. */
const TRANSPARENT = /^[\p{Cf}\p{M}\p{Default_Ignorable_Code_Point}]$/u;

const digitValueCache = new Map<number, number>();

/**
 * containsCardNumber reports whether text holds something written like a payment card number.
 *
 * The rule: text is read as runs of digits, where digit groups may be joined by up to three
 * separator characters (spaces, tabs, line breaks, dashes, dots, underscores, slashes, commas,
 * controls and their Unicode forms, see SEPARATOR) and invisible characters are ignored. Within a
 * run, any span of whole groups with at most 19 digits, 13 to 19 of them after leading zeros,
 * that passes Luhn is a card number. So "4111 1111 1111 1111" and "4111-1111-1111-1111 123" are
 * found, while an unseparated run longer than 19 digits is not: a written PAN is bounded by
 * non-digits, and long numbers (hashes, big integers) are not card numbers. One exception keeps
 * Unix times in milliseconds apart: no card scheme issues 13-digit numbers starting with 1.
 * Text is NFKC-normalized first and every Unicode decimal digit counts, so full-width or
 * Arabic-Indic digits do not hide a number. Time is linear in the text length.
 */
export function containsCardNumber(text: string): boolean {
  const scan = new RunScanner();
  for (const ch of text.normalize('NFKC')) {
    if (scan.push(ch)) return true;
  }
  return scan.flush();
}

class RunScanner {
  private digits: number[] = [];
  private groupStarts: number[] = [];
  private separatorPending = false;
  private separatorRun = 0;

  /** push consumes one code point and reports whether a finished run held a card number. */
  push(ch: string): boolean {
    const digit = digitValue(ch);
    if (digit >= 0) {
      if (this.digits.length === 0 || this.separatorPending) this.groupStarts.push(this.digits.length);
      this.digits.push(digit);
      this.separatorPending = false;
      this.separatorRun = 0;
      return false;
    }
    if (isTransparent(ch)) return false;
    if (isSeparator(ch) && this.digits.length > 0 && this.separatorRun < SEPARATOR_RUN_MAX) {
      this.separatorPending = true;
      this.separatorRun++;
      return false;
    }
    return this.flush();
  }

  /** flush ends the current run and reports whether it held a card number. */
  flush(): boolean {
    const found = this.runHoldsCardNumber();
    this.digits = [];
    this.groupStarts = [];
    this.separatorPending = false;
    this.separatorRun = 0;
    return found;
  }

  private runHoldsCardNumber(): boolean {
    const { digits, groupStarts } = this;
    if (digits.length < PAN_DIGITS_MIN) return false;
    // Each start extends over at most 19 digits, so the work per group is bounded.
    for (let i = 0; i < groupStarts.length; i++) {
      const start = groupStarts[i] as number;
      for (let j = i + 1; j <= groupStarts.length; j++) {
        const end = j < groupStarts.length ? (groupStarts[j] as number) : digits.length;
        if (end - start > PAN_DIGITS_MAX) break;
        if (isCardNumber(digits, start, end)) return true;
      }
    }
    return false;
  }
}

function isCardNumber(digits: readonly number[], start: number, end: number): boolean {
  let first = start;
  while (first < end && digits[first] === 0) first++;
  const significant = end - first;
  if (significant < PAN_DIGITS_MIN) return false;
  if (significant === PAN_DIGITS_MIN && digits[first] === 1) return false;
  return luhnValid(digits, first, end);
}

/** digitValue returns the value 0..9 of a decimal digit in any script, or -1. */
function digitValue(ch: string): number {
  const code = ch.codePointAt(0) as number;
  if (code >= 0x30 && code <= 0x39) return code - 0x30;
  if (code < 0x80 || !UNICODE_DIGIT.test(ch)) return -1;
  const cached = digitValueCache.get(code);
  if (cached !== undefined) return cached;
  // Find the start of this block run; Unicode encodes each script's digits 0..9 contiguously.
  let blockStart = code;
  while (code - blockStart < DIGIT_BLOCK_RUN_MAX && UNICODE_DIGIT.test(String.fromCodePoint(blockStart - 1))) blockStart--;
  const value = (code - blockStart) % 10;
  digitValueCache.set(code, value);
  return value;
}

function isSeparator(ch: string): boolean {
  const code = ch.charCodeAt(0);
  if (code < 0x80) return code < 0x20 || code === 0x7f || ASCII_SEPARATORS.includes(ch);
  return SEPARATOR.test(ch);
}

function isTransparent(ch: string): boolean {
  return ch.charCodeAt(0) >= 0x80 && TRANSPARENT.test(ch);
}

import { luhnValid } from './luhn.js';

/** A payment card number (PAN) has 13 to 19 digits (ISO/IEC 7812). */
const PAN_DIGITS_MIN = 13;
const PAN_DIGITS_MAX = 19;

/** Unicode decimal digits come in contiguous blocks of ten; the longest run of blocks is 50. */
const DIGIT_BLOCK_RUN_MAX = 60;

const UNICODE_DIGIT = /^\p{Nd}$/u;
/** Characters that may stand, one at a time, between the digit groups of a written card number. */
const SEPARATOR = /^[\p{Zs}\p{Pd}\u2212]$/u;
/** Invisible characters (format controls, combining marks) that must not hide a card number. */
const TRANSPARENT = /^[\p{Cf}\p{M}]$/u;

const digitValueCache = new Map<number, number>();

/**
 * containsCardNumber reports whether text holds something written like a payment card number.
 *
 * The rule: text is read as runs of digits, where digit groups may be joined by ONE separator (a
 * space or a dash, including their Unicode forms) and invisible characters are ignored. Within a
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

  /** push consumes one code point and reports whether a finished run held a card number. */
  push(ch: string): boolean {
    const digit = digitValue(ch);
    if (digit >= 0) {
      if (this.digits.length === 0 || this.separatorPending) this.groupStarts.push(this.digits.length);
      this.digits.push(digit);
      this.separatorPending = false;
      return false;
    }
    if (isSeparator(ch) && this.digits.length > 0 && !this.separatorPending) {
      this.separatorPending = true;
      return false;
    }
    if (isTransparent(ch)) return false;
    return this.flush();
  }

  /** flush ends the current run and reports whether it held a card number. */
  flush(): boolean {
    const found = this.runHoldsCardNumber();
    this.digits = [];
    this.groupStarts = [];
    this.separatorPending = false;
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
  if (ch === ' ' || ch === '-') return true;
  return ch.charCodeAt(0) >= 0x80 && SEPARATOR.test(ch);
}

function isTransparent(ch: string): boolean {
  return ch.charCodeAt(0) >= 0x80 && TRANSPARENT.test(ch);
}

import { LatchError } from '../errors/latch-error.js';
import { exactDecimal } from '../json/exact-decimal.js';
import { JsonNumber, type JsonValue } from '../json/parse-json.js';
import { isCardFieldName } from './card-field-names.js';
import { containsCardNumber } from './card-number-scan.js';
import { percentDecodeLenient } from './percent-decode.js';

/** The parts of a request the guard inspects. `query` is the raw query string, with or without `?`. */
export interface CardDataInput {
  path?: string;
  query?: string;
  body?: JsonValue;
  /** Header values that are stored or forwarded (Idempotency-Key, User-Agent, ...). */
  headerValues?: readonly string[];
}

const SHA256_HEX = /^[0-9a-f]{64}$/;

/** Rounds of percent-decoding tried, so a double- or triple-encoded number or name is still seen. */
const DECODE_ROUNDS_MAX = 4;
/** A parsed body is bounded by size and nesting; this catches a programmer passing a cyclic object. */
const BODY_NODES_MAX = 1_000_000;

/**
 * findCardData reports whether a request carries card data (docs/decisions.md §8): a field named like a
 * card number, CVV, expiry or track data at any depth of the body or in the query, or a
 * Luhn-valid 13–19 digit number (see containsCardNumber) in any string, key or number of the
 * body, in the path or in the query, raw or percent-decoded, or in one of the header values given.
 * It never throws on malformed input.
 */
export function findCardData(input: CardDataInput): boolean {
  if (input.path !== undefined && urlPartHasCardNumber(input.path, false)) return true;
  if (input.headerValues?.some((value) => containsCardNumber(value)) === true) return true;
  if (input.query !== undefined && queryHasCardData(input.query)) return true;
  if (input.body !== undefined && bodyHasCardData(input.body)) return true;
  return false;
}

/**
 * assertNoCardData throws `card_data_not_accepted` when findCardData finds card data. The error
 * names no param and carries none of the input, so the value is never echoed or logged.
 */
export function assertNoCardData(input: CardDataInput): void {
  if (findCardData(input)) throw new LatchError('card_data_not_accepted');
}

function urlPartHasCardNumber(text: string, plusAsSpace: boolean): boolean {
  let current = text;
  if (containsCardNumber(current)) return true;
  for (let round = 0; round < DECODE_ROUNDS_MAX; round++) {
    const decoded = percentDecodeLenient(current, plusAsSpace);
    if (decoded === current) return false;
    if (containsCardNumber(decoded)) return true;
    current = decoded;
  }
  return false;
}

/**
 * Query names are checked in every decoding round of the whole query, split at `&` and at `;`
 * (which some servers also take as a separator), so `c%2576v=1` (double-encoded `cvv`) and
 * `a=1;cvv=1` are both seen.
 */
function queryHasCardData(query: string): boolean {
  const raw = query.startsWith('?') ? query.slice(1) : query;
  if (urlPartHasCardNumber(raw, true)) return true;
  let current = raw;
  for (let round = 0; round <= DECODE_ROUNDS_MAX; round++) {
    if (queryNamesHaveCardField(current)) return true;
    const decoded = percentDecodeLenient(current, true);
    if (decoded === current) return false;
    current = decoded;
  }
  return false;
}

function queryNamesHaveCardField(query: string): boolean {
  for (const pair of query.split(/[&;]/)) {
    const equals = pair.indexOf('=');
    if (isCardFieldName(equals === -1 ? pair : pair.slice(0, equals))) return true;
  }
  return false;
}

/**
 * assertSignableWithoutCardData throws `card_data_not_accepted` when a value about to be signed
 * (a JWS payload: plain objects, arrays, strings, numbers) carries card data by the same rules as
 * a request body. It is the last check before anything leaves the device under Latch's key.
 */
export function assertSignableWithoutCardData(payload: unknown): void {
  if (bodyHasCardData(payload)) throw new LatchError('card_data_not_accepted');
}

function bodyHasCardData(body: unknown): boolean {
  // An explicit stack: no recursion limit to hit, whatever the nesting.
  const stack: unknown[] = [body];
  let visited = 0;
  while (stack.length > 0) {
    const value = stack.pop();
    if (++visited > BODY_NODES_MAX) throw new Error('card-data guard: body has too many nodes');
    if (typeof value === 'string') {
      if (containsCardNumber(value)) return true;
    } else if (value instanceof JsonNumber) {
      if (numberHasCardNumber(value.text)) return true;
    } else if ((typeof value === 'number' && Number.isFinite(value)) || typeof value === 'bigint') {
      // A float's shortest text (`4.111111111111111e+21` included) is exact for the value it holds.
      if (numberHasCardNumber(String(value))) return true;
    } else if (Array.isArray(value)) {
      for (const item of value) stack.push(item);
    } else if (value !== null && typeof value === 'object') {
      const record = value as Record<string, unknown>;
      for (const key of Object.keys(record)) {
        if (isCardFieldName(key) || containsCardNumber(key)) return true;
        // A SHA-256 named as one (`payload_sha256`) is a hash, not a number anyone wrote: 64 random
        // hex digits hold a Luhn-valid run about once in 250 (docs/decisions.md §22.1, §40). Only
        // such names, and only an exact hash, skip the scan — as in the audit log.
        if (key.endsWith('_sha256') && typeof record[key] === 'string' && SHA256_HEX.test(record[key] as string)) continue;
        stack.push(record[key]);
      }
    }
  }
  return false;
}

/**
 * A number is checked by its exact value: its integer and fraction digits, each as a run of its
 * own (the fraction without its leading zeros), after the exponent is applied on the digit string. So `4111111111111111` followed by 65
 * zeros and `e-65` is the card number it equals. Number text outside the parser's bounds cannot
 * be evaluated cheaply and counts as card data: the guard fails closed.
 */
function numberHasCardNumber(text: string): boolean {
  const exact = exactDecimal(text);
  if (exact === undefined) return true;
  // Zeros at the start of the fraction only place its digits; they do not hide them.
  return containsCardNumber(exact.integer) || containsCardNumber(exact.fraction.replace(/^0+/, ''));
}

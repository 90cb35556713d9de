import { invalidRequest } from '../errors/latch-error.js';
import type { JsonValue } from '../json/parse-json.js';
import { presenceOf, wrongType, type FieldRule, type PresenceOf, type PresenceOptions } from './field-rule.js';
import { textJsonSchema, type SchemaHint } from './rule-json-schema.js';
import type { TextChecks } from './text-checks.js';

export type { TextChecks } from './text-checks.js';

/** Strings are bounded unless a rule says otherwise (in code points). */
export const STRING_LENGTH_MAX_DEFAULT = 256;

/**
 * Characters no text field accepts: C0/C1 controls and DEL, lone surrogates, line and paragraph
 * separators, and bidirectional controls that make displayed text differ from stored text.
 */
const FORBIDDEN_CHARACTERS = /[\p{Cc}\p{Cs}\u061C\u200E\u200F\u2028\u2029\u202A-\u202E\u2066-\u2069]/u;

/** The text checks every string field applies. */

export interface StrOptions extends TextChecks, PresenceOptions<string> {}

/** hasForbiddenCharacters reports whether text holds a control, bidi or unpaired surrogate character. */
export function hasForbiddenCharacters(text: string): boolean {
  return FORBIDDEN_CHARACTERS.test(text);
}

/** checkText applies the common string checks (length, forbidden characters, pattern) and returns text. */
export function checkText(text: string, param: string, options: TextChecks): string {
  const minLength = options.minLength ?? 1;
  const maxLength = options.maxLength ?? STRING_LENGTH_MAX_DEFAULT;
  // Count code points, but never walk more than needed on a huge string.
  const length = text.length > maxLength * 2 ? text.length : [...text].length;
  if (length < minLength) {
    throw invalidRequest(param, minLength === 1 ? `${param} must not be empty.` : `${param} must be at least ${minLength} characters.`);
  }
  if (length > maxLength) throw invalidRequest(param, `${param} must be at most ${maxLength} characters.`);
  if (hasForbiddenCharacters(text)) throw invalidRequest(param, `${param} must not contain control characters.`);
  if (options.pattern !== undefined && !wholeMatch(options.pattern, text)) {
    throw invalidRequest(param, `${param} must be ${options.describe ?? 'in the documented format'}.`);
  }
  return text;
}

function wholeMatch(pattern: RegExp, text: string): boolean {
  // A global or sticky pattern keeps lastIndex between calls; a fresh copy keeps each test independent.
  const fresh = new RegExp(pattern.source, pattern.flags.replace(/[gy]/g, ''));
  const match = fresh.exec(text);
  return match !== null && match.index === 0 && match[0].length === text.length;
}

/** str is a string field: bounded, free of control characters, optionally matching a pattern. */
export function str<const O extends StrOptions = {}>(options: O = {} as O): FieldRule<string, PresenceOf<O>> {
  return parsedStr((text) => text, options);
}

/** Options of parsedStr: the text checks, presence, and what `parse` accepts when JSON Schema can say it. */
export interface ParsedStrOptions<T> extends TextChecks, PresenceOptions<T> {
  /** Describes the values `parse` accepts (an enum or a pattern) in the rule's JSON Schema. */
  schemaHint?: SchemaHint;
}

/**
 * parsedStr is a string field whose text is then parsed by `parse` (which throws invalid_request
 * with the param it is given), e.g. `parsedStr(normalizeMerchant, { required: true })`.
 */
export function parsedStr<T, const O extends ParsedStrOptions<T> = {}>(
  parse: (text: string, param: string) => T,
  options: O = {} as O,
): FieldRule<T, PresenceOf<O>> {
  const fromText = (text: string, param: string): T => parse(checkText(text, param, options), param);
  return {
    presence: presenceOf(options) as PresenceOf<O>,
    defaultValue: options.default as T | undefined,
    fromJson(value: JsonValue, param: string): T {
      if (typeof value !== 'string') throw wrongType(param, 'a string');
      return fromText(value, param);
    },
    fromQuery: fromText,
    jsonSchema: textJsonSchema(options, STRING_LENGTH_MAX_DEFAULT, options.schemaHint),
  };
}

import { JsonNumber, isJsonObject, type JsonObject, type JsonValue } from '../json/parse-json.js';
import { elementPath, memberPath, refuse } from './policy-invalid-error.js';

/** Keys longer than this, or with other characters, are not repeated in a field path. */
const PRINTABLE_KEY = /^[A-Za-z0-9_-]{1,40}$/;
const INTEGER_TEXT = /^(0|[1-9][0-9]{0,14})$/;

/**
 * readObject checks that `value` is an object whose keys are all in `allowed`; an unknown key is
 * refused by its own path, so a typo such as `max_ammount` is named exactly.
 */
export function readObject(value: JsonValue | undefined, field: string, allowed: readonly string[]): JsonObject {
  if (!isJsonObject(value)) refuse(field, 'must be an object.');
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key)) {
      const path = PRINTABLE_KEY.test(key) ? memberPath(field, key) : memberPath(field, '<unknown>');
      refuse(path, `unknown field; allowed here: ${allowed.join(', ')}.`);
    }
  }
  return value;
}

/** readString returns a string of at most `lengthMax` characters. */
export function readString(value: JsonValue | undefined, field: string, lengthMax: number): string {
  if (typeof value !== 'string') refuse(field, 'must be a string.');
  if (value.length > lengthMax) refuse(field, `must be at most ${lengthMax} characters.`);
  return value;
}

/** readPattern returns a string that matches `pattern`, described to the owner as `describe`. */
export function readPattern(value: JsonValue | undefined, field: string, pattern: RegExp, describe: string): string {
  const text = readString(value, field, 256);
  if (!pattern.test(text)) refuse(field, `must be ${describe}.`);
  return text;
}

/** readChoice returns one of `choices`. */
export function readChoice<T extends string>(value: JsonValue | undefined, field: string, choices: readonly T[]): T {
  const text = readString(value, field, 64);
  if (!(choices as readonly string[]).includes(text)) refuse(field, `must be one of ${choices.map((c) => `"${c}"`).join(', ')}.`);
  return text as T;
}

/** readInteger returns a whole JSON number within [min, max]; no fraction, exponent or sign. */
export function readInteger(value: JsonValue | undefined, field: string, min: number, max: number): number {
  if (!(value instanceof JsonNumber)) refuse(field, 'must be a whole number.');
  if (!INTEGER_TEXT.test(value.text)) refuse(field, `must be a whole number from ${min} to ${max}.`);
  const number = Number(value.text);
  if (number < min || number > max) refuse(field, `must be a whole number from ${min} to ${max}.`);
  return number;
}

/**
 * readList returns a non-empty array of at most `lengthMax` items, each read by `readItem`, with
 * no item listed twice (after `readItem` normalizes it). An empty list would silently match
 * nothing, so it is refused: leaving the field out is how a condition is left out.
 */
export function readList<T>(
  value: JsonValue | undefined,
  field: string,
  lengthMax: number,
  readItem: (item: JsonValue, itemField: string) => T,
): T[] {
  if (!Array.isArray(value)) refuse(field, 'must be an array.');
  if (value.length === 0) refuse(field, 'must not be empty; leave the field out to match everything.');
  if (value.length > lengthMax) refuse(field, `must have at most ${lengthMax} entries.`);
  const items: T[] = [];
  value.forEach((item, index) => {
    const itemField = elementPath(field, index);
    const read = readItem(item, itemField);
    if (items.includes(read)) refuse(itemField, 'is listed twice.');
    items.push(read);
  });
  return items;
}

/** readArray returns an array of at most `lengthMax` items (possibly empty), for the top-level lists. */
export function readArray(value: JsonValue | undefined, field: string, lengthMax: number): JsonValue[] {
  if (!Array.isArray(value)) refuse(field, 'must be an array.');
  if (value.length > lengthMax) refuse(field, `must have at most ${lengthMax} entries.`);
  return value;
}

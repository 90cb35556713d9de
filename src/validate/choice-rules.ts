import { invalidRequest } from '../errors/latch-error.js';
import type { JsonValue } from '../json/parse-json.js';
import { presenceOf, wrongType, type FieldRule, type PresenceOf, type PresenceOptions } from './field-rule.js';

/** bool is a boolean field: JSON true/false, or exactly `true`/`false` in a query. */
export function bool<const O extends PresenceOptions<boolean> = {}>(options: O = {} as O): FieldRule<boolean, PresenceOf<O>> {
  return {
    presence: presenceOf(options) as PresenceOf<O>,
    defaultValue: options.default,
    fromJson(value: JsonValue, param: string): boolean {
      if (typeof value !== 'boolean') throw wrongType(param, 'true or false');
      return value;
    },
    fromQuery(text: string, param: string): boolean {
      if (text === 'true') return true;
      if (text === 'false') return false;
      throw wrongType(param, 'true or false');
    },
    jsonSchema: { type: 'boolean' },
  };
}

/**
 * oneOf is an enumerated string field; matching is exact (case-sensitive). The allowed values
 * are named in the error message, the value sent is not.
 */
export function oneOf<const V extends readonly string[], const O extends PresenceOptions<V[number]> = {}>(
  values: V,
  options: O = {} as O,
): FieldRule<V[number], PresenceOf<O>> {
  if (values.length === 0) throw new Error('oneOf needs at least one value');
  if (options.default !== undefined && !values.includes(options.default)) throw new Error('oneOf default is not one of the values');
  const expected = values.length === 1 ? `"${values[0]}"` : `one of ${values.map((v) => `"${v}"`).join(', ')}`;
  const fromText = (text: string, param: string): V[number] => {
    if (!values.includes(text)) throw invalidRequest(param, `${param} must be ${expected}.`);
    return text;
  };
  return {
    presence: presenceOf(options) as PresenceOf<O>,
    defaultValue: options.default,
    fromJson(value: JsonValue, param: string): V[number] {
      if (typeof value !== 'string') throw wrongType(param, expected);
      return fromText(value, param);
    },
    fromQuery: fromText,
    jsonSchema: { type: 'string', enum: values },
  };
}

/**
 * Fields of a JSON body that are objects or arrays checked as a whole (an AP2 merchant, x402's
 * PaymentRequirements): the rule that carries such a check, and the closed-object check each uses.
 */
import { invalidRequest } from '../errors/latch-error.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../json/parse-json.js';
import { displayName } from './display-name.js';
import { wrongType, type FieldRule } from './field-rule.js';
import type { RuleJsonSchema } from './rule-json-schema.js';

/**
 * objectRule is a body field (required unless said otherwise) checked by `parse` as a whole; it is
 * never a query parameter, and `expected` says what it takes.
 *
 * @example
 *   const merchant = objectRule('an object {"name", "website"}', merchantFrom, { type: 'object' });
 */
export function objectRule<T, P extends 'required' | 'optional' = 'required'>(expected: string, parse: (value: JsonValue, param: string) => T, jsonSchema: RuleJsonSchema, presence: P = 'required' as P): FieldRule<T, P> {
  return {
    presence,
    defaultValue: undefined,
    jsonSchema,
    fromJson: parse,
    fromQuery: (_text, param) => {
      throw wrongType(param, expected);
    },
  };
}

/** exactObject requires an object with the required members (not null) and no members outside required and optional. */
export function exactObject(value: JsonValue, param: string, required: readonly string[], optional: readonly string[]): JsonObject {
  if (!isJsonObject(value)) throw wrongType(param, 'an object');
  for (const name of Object.keys(value)) {
    if (required.includes(name) || optional.includes(name)) continue;
    // The unknown name is repeated only when it is safe to show (display-name.ts).
    const shown = displayName(name);
    throw invalidRequest(shown === undefined ? param : `${param}.${shown}`, `${param} takes only ${[...required, ...optional].join(', ')}${shown === undefined ? '' : `, not ${shown}`}.`);
  }
  for (const name of required) {
    if (value[name] === undefined || value[name] === null) throw invalidRequest(`${param}.${name}`, `${param}.${name} is required.`);
  }
  return value;
}

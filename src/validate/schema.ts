import { invalidRequest } from '../errors/latch-error.js';
import { isJsonObject, type JsonValue } from '../json/parse-json.js';
import { unknownNameError } from './display-name.js';
import type { FieldRule, RuleSet, Validated } from './field-rule.js';

export { str, parsedStr, STRING_LENGTH_MAX_DEFAULT, type StrOptions, type TextChecks } from './string-rule.js';
export { int, amount, type IntOptions, type AmountOptions } from './number-rules.js';
export { bool, oneOf } from './choice-rules.js';
export type { FieldRule, RuleSet, Validated, Presence, PresenceOptions } from './field-rule.js';

/**
 * validateBody checks a parsed JSON body against rules and returns the typed values:
 *
 *     const input = validateBody(body, { card_id: str({ required: true }), ttl_minutes: int({ min: 1, max: 1440, default: 30 }) });
 *     input.ttl_minutes; // number
 *
 * The body must be an object. Unknown fields, missing required fields and wrong values are
 * refused with `invalid_request` naming the field in `param`; messages never repeat the value.
 * A member set to null counts as absent. Unknown fields are reported first, in body order.
 */
export function validateBody<R extends RuleSet>(body: JsonValue | undefined, rules: R): Validated<R> {
  if (!isJsonObject(body)) throw invalidRequest('body', 'The body must be a JSON object.');
  for (const name of Object.keys(body)) {
    if (!Object.hasOwn(rules, name)) throw unknownNameError('body', name);
  }
  const out: Record<string, unknown> = {};
  for (const [name, rule] of Object.entries(rules)) {
    const value = Object.hasOwn(body, name) ? body[name] : undefined;
    out[name] = value === undefined || value === null ? absent(rule, name) : rule.fromJson(value, name);
  }
  return out as Validated<R>;
}

/**
 * validateQuery checks query parameters against rules and returns the typed values. Unknown and
 * repeated parameters are refused (`invalid_request` with `param`), so no parameter is silently
 * ignored or read two ways.
 */
export function validateQuery<R extends RuleSet>(params: URLSearchParams, rules: R): Validated<R> {
  const seen = new Set<string>();
  for (const name of params.keys()) {
    if (!Object.hasOwn(rules, name)) throw unknownNameError('query', name);
    if (seen.has(name)) throw invalidRequest(name, `Query parameter ${name} is repeated.`);
    seen.add(name);
  }
  const out: Record<string, unknown> = {};
  for (const [name, rule] of Object.entries(rules)) {
    const text = params.get(name);
    out[name] = text === null ? absent(rule, name) : rule.fromQuery(text, name);
  }
  return out as Validated<R>;
}

function absent(rule: FieldRule<unknown>, name: string): unknown {
  if (rule.presence === 'required') throw invalidRequest(name, `${name} is required.`);
  return rule.presence === 'defaulted' ? rule.defaultValue : undefined;
}

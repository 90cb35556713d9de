import { invalidRequest, type LatchError } from '../errors/latch-error.js';
import type { JsonValue } from '../json/parse-json.js';
import type { RuleJsonSchema } from './rule-json-schema.js';

/** Whether a field must be sent, may be left out, or takes a default when left out. */
export type Presence = 'required' | 'optional' | 'defaulted';

/**
 * A FieldRule checks one field of a JSON body or a query string and turns it into a typed value.
 * Rules are made by the builders (str, int, amount, bool, oneOf, parsedStr) and grouped into a
 * plain object of rules that validateBody or validateQuery applies.
 */
export interface FieldRule<T, P extends Presence = Presence> {
  readonly presence: P;
  /** The value used when the field is absent and presence is `defaulted`. */
  readonly defaultValue: T | undefined;
  /** fromJson checks a value from a parsed JSON body (never null or absent). */
  fromJson(value: JsonValue, param: string): T;
  /** fromQuery checks the text of a query parameter. */
  fromQuery(text: string, param: string): T;
  /** What the rule accepts, as JSON Schema (never stricter than the rule); the builders all set it. */
  readonly jsonSchema?: RuleJsonSchema;
}

/** A set of named field rules. */
export type RuleSet = Readonly<Record<string, FieldRule<unknown>>>;

/** Validated is the typed result of a rule set: optional fields may be undefined, the rest are set. */
export type Validated<R extends RuleSet> = {
  -readonly [K in keyof R]: R[K] extends FieldRule<infer T, infer P> ? (P extends 'optional' ? T | undefined : T) : never;
};

/** Options every builder takes. */
export interface PresenceOptions<T> {
  required?: boolean;
  default?: T;
}

/** PresenceOf derives a rule's presence from the options literal it was built with. */
export type PresenceOf<O> = O extends { required: true } ? 'required' : O extends { default: unknown } ? 'defaulted' : 'optional';

/** presenceOf is the runtime twin of PresenceOf; asking for both a default and required is a bug. */
export function presenceOf<T>(options: PresenceOptions<T>): Presence {
  if (options.required === true && options.default !== undefined) {
    throw new Error('a field rule cannot be both required and defaulted');
  }
  if (options.required === true) return 'required';
  return options.default !== undefined ? 'defaulted' : 'optional';
}

/** wrongType is the error for a field of the wrong kind; it describes what is expected, never the value. */
export function wrongType(param: string, expected: string): LatchError {
  return invalidRequest(param, `${param} must be ${expected}.`);
}

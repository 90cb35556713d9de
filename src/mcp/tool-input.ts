/**
 * The input schemas of the MCP tools and their validation. A schema is advertised to clients in
 * tools/list exactly as built by tool-schema.ts from the daemon's own field rules, and the same
 * object is what arguments are checked against, so the two cannot drift. Only the JSON Schema
 * keywords below are used (a test keeps it so).
 */
import { isJsonObject, JsonNumber, type JsonObject, type JsonValue } from '../json/parse-json.js';
import { displayName } from '../validate/display-name.js';
import type { RuleJsonSchema } from '../validate/rule-json-schema.js';

/** One property: a field rule's JSON Schema and what the agent is told about it. */
export interface PropertySchema extends RuleJsonSchema {
  readonly description: string;
}

/** A tool's inputSchema: an object with known properties and nothing else. */
export interface InputSchema {
  readonly type: 'object';
  readonly properties: Readonly<Record<string, PropertySchema>>;
  readonly required?: readonly string[];
  readonly additionalProperties: false;
}

/** Validated arguments: strings stay strings, integers are numbers, amounts are their exact decimal text. */
export type ToolArguments = Record<string, ToolValue>;

/** One checked argument: text, a whole number, a flag, or an object or array of them (AP2 mandate items). */
export type ToolValue = string | number | boolean | Readonly<Record<string, string>> | { readonly [member: string]: ToolValue } | readonly ToolValue[];

/** ToolInputError is an argument that does not fit the tool's schema; the agent can correct it. */
export class ToolInputError extends Error {
  constructor(
    readonly param: string,
    message: string,
  ) {
    super(message);
    this.name = 'ToolInputError';
  }
}

/**
 * validateArguments checks a tools/call's arguments against the schema: no unknown or missing
 * fields, right types, bounds, patterns and choices. An amount given as a JSON number is kept as
 * its source text, so it reaches the daemon exactly as the agent wrote it.
 */
export function validateArguments(schema: InputSchema, args: JsonObject | undefined): ToolArguments {
  const given = args ?? {};
  const out: ToolArguments = {};
  for (const name of Object.keys(given)) {
    if (!Object.hasOwn(schema.properties, name)) throw unknownArgument(name, Object.keys(schema.properties));
  }
  for (const name of schema.required ?? []) {
    if (given[name] === undefined) throw new ToolInputError(name, `${name} is required.`);
  }
  for (const [name, property] of Object.entries(schema.properties)) {
    const value = given[name];
    if (value !== undefined) out[name] = checkValue(name, property, value);
  }
  return out;
}

/**
 * unknownArgument names an unknown argument only in the form displayName allows (no markup,
 * control or look-alike characters, no card data), like the daemon does for unknown fields.
 */
function unknownArgument(name: string, allowed: readonly string[]): ToolInputError {
  const known = `allowed: ${allowed.join(', ') || 'none'}.`;
  const shown = displayName(name);
  if (shown === undefined) return new ToolInputError('arguments', `Unknown argument; its name is not repeated because it holds characters other than letters, digits, "_", "." and "-". ${known}`);
  return new ToolInputError(shown, `Unknown argument ${shown}; ${known}`);
}

function checkValue(name: string, property: PropertySchema, value: JsonValue): ToolValue {
  if (property.type === 'object') return checkObject(name, property, value);
  if (property.type === 'array') return checkArray(name, property, value);
  if (property.type === 'boolean') {
    if (typeof value !== 'boolean') throw new ToolInputError(name, `${name} must be true or false.`);
    return value;
  }
  if (property.type === 'integer') {
    if (!(value instanceof JsonNumber) || !/^-?[0-9]{1,15}$/.test(value.text)) throw new ToolInputError(name, `${name} must be a whole number.`);
    return checkBounds(name, property, Number(value.text));
  }
  if (value instanceof JsonNumber && property.type !== 'string') {
    checkBounds(name, property, Number(value.text));
    return value.text;
  }
  if (typeof value !== 'string') throw new ToolInputError(name, property.type === 'string' ? `${name} must be a string.` : `${name} must be a decimal string like "12.50" or a number.`);
  const length = [...value].length;
  if (property.minLength !== undefined && length < property.minLength) throw new ToolInputError(name, `${name} must be at least ${property.minLength} characters.`);
  if (property.maxLength !== undefined && length > property.maxLength) throw new ToolInputError(name, `${name} must be at most ${property.maxLength} characters.`);
  if (property.enum !== undefined && !property.enum.includes(value)) throw new ToolInputError(name, `${name} must be one of ${property.enum.join(', ')}.`);
  if (property.pattern !== undefined && !new RegExp(property.pattern, 'u').test(value)) throw new ToolInputError(name, `${name} has the wrong form: ${property.description}`);
  return value;
}

/**
 * checkObject checks an object against its properties (a request's headers, an AP2 merchant or
 * key): no other member is allowed, and the members `required` names must be there.
 */
function checkObject(name: string, property: PropertySchema, value: JsonValue): { readonly [member: string]: ToolValue } {
  if (!isJsonObject(value)) throw new ToolInputError(name, `${name} must be an object.`);
  // An object whose schema names no members is opaque (x402's `extra`): the daemon bounds and keeps it as sent.
  if (property.properties === undefined && property.additionalProperties === undefined) return value as { readonly [member: string]: ToolValue };
  const members = property.properties ?? {};
  const out: Record<string, ToolValue> = {};
  for (const [member, memberValue] of Object.entries(value)) {
    const schema = Object.hasOwn(members, member) ? members[member] : undefined;
    if (schema === undefined) throw new ToolInputError(name, `${name} may hold only ${Object.keys(members).join(', ') || 'nothing'}.`);
    out[member] = checkValue(`${name}.${member}`, { ...schema, description: property.description }, memberValue);
  }
  for (const member of property.required ?? []) {
    if (value[member] === undefined) throw new ToolInputError(`${name}.${member}`, `${name}.${member} is required.`);
  }
  return out;
}

/** checkArray checks an array's length and each element against `items`. */
function checkArray(name: string, property: PropertySchema, value: JsonValue): readonly ToolValue[] {
  if (!Array.isArray(value)) throw new ToolInputError(name, `${name} must be an array.`);
  if (property.minItems !== undefined && value.length < property.minItems) throw new ToolInputError(name, `${name} must hold at least ${property.minItems} item(s).`);
  if (property.maxItems !== undefined && value.length > property.maxItems) throw new ToolInputError(name, `${name} may hold at most ${property.maxItems} items.`);
  const items = property.items;
  if (items === undefined) throw new Error(`checkArray: ${name} has no items schema`);
  return value.map((element, index) => checkValue(`${name}[${index}]`, { ...items, description: property.description }, element));
}

function checkBounds(name: string, property: PropertySchema, number: number): number {
  const belowMinimum = (property.minimum !== undefined && number < property.minimum) || (property.exclusiveMinimum !== undefined && number <= property.exclusiveMinimum);
  if (belowMinimum || (property.maximum !== undefined && number > property.maximum)) {
    const lower = property.minimum !== undefined ? `from ${property.minimum}` : `above ${property.exclusiveMinimum ?? '-'}`;
    throw new ToolInputError(name, `${name} must be ${lower} to ${property.maximum ?? '-'}.`);
  }
  return number;
}

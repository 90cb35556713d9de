/**
 * How a field rule describes itself as JSON Schema, so a schema shown to others (the MCP tools'
 * inputSchema) is derived from the very rules the daemon applies instead of being written again.
 * A description may be looser than its rule where JSON Schema cannot say what the rule checks
 * (a domain's structure, an ISO time, control characters); it is never stricter than the rule,
 * except that JSON Schema refuses a null the daemon reads as "absent".
 */
import type { TextChecks } from './text-checks.js';

/** The JSON Schema keywords a field rule uses to describe one value. */
export interface RuleJsonSchema {
  readonly type: 'string' | 'integer' | 'boolean' | 'object' | 'array' | readonly ['string', 'number'];
  readonly enum?: readonly string[];
  /** An ECMA-262 pattern, anchored at both ends. */
  readonly pattern?: string;
  /** Fewest and most code points of a string. */
  readonly minLength?: number;
  readonly maxLength?: number;
  /** Bounds of a number, inclusive; exclusiveMinimum is the strict lower bound of an amount. */
  readonly minimum?: number;
  readonly exclusiveMinimum?: number;
  readonly maximum?: number;
  /** An object's members and that no other member is allowed; `required` names the members it must have. */
  readonly properties?: Readonly<Record<string, RuleJsonSchema>>;
  readonly required?: readonly string[];
  readonly additionalProperties?: false;
  /** An array's elements and how many it may hold (AP2 mandate items, docs/ap2.md). */
  readonly items?: RuleJsonSchema;
  readonly minItems?: number;
  readonly maxItems?: number;
}

/** What a parsed string's parse function accepts, when a JSON Schema can say so exactly. */
export interface SchemaHint {
  readonly enum?: readonly string[];
  readonly pattern?: RegExp;
}

/**
 * anchoredSource turns a rule's RegExp into a JSON Schema pattern that matches whole values, as
 * checkText does. A pattern with flags other than `u` cannot be carried over, so none is given.
 */
export function anchoredSource(pattern: RegExp): string | undefined {
  if (pattern.flags.replace(/[gyu]/g, '') !== '') return undefined;
  const source = pattern.source;
  const anchored = source.startsWith('^') && source.endsWith('$') && !source.endsWith('\\$');
  return anchored ? source : `^(?:${source})$`;
}

/** textJsonSchema describes the checks every string rule applies (bounds and pattern). */
export function textJsonSchema(options: TextChecks, stringLengthMaxDefault: number, hint: SchemaHint = {}): RuleJsonSchema {
  const pattern = hint.pattern ?? options.pattern;
  const source = pattern === undefined ? undefined : anchoredSource(pattern);
  return {
    type: 'string',
    ...(hint.enum === undefined ? {} : { enum: hint.enum }),
    ...(source === undefined ? {} : { pattern: source }),
    minLength: options.minLength ?? 1,
    maxLength: options.maxLength ?? stringLengthMaxDefault,
  };
}

/** The JSON Schema of a whole rule set: each field's description and the required fields, in rule order. */
export interface RuleSetJsonSchema {
  readonly properties: Readonly<Record<string, RuleJsonSchema>>;
  readonly required: readonly string[];
}

/** describeRuleSet gives a rule set's JSON Schema; a rule that cannot describe itself is a programming error. */
export function describeRuleSet(rules: Readonly<Record<string, { readonly presence: string; readonly jsonSchema?: RuleJsonSchema }>>): RuleSetJsonSchema {
  const properties: Record<string, RuleJsonSchema> = {};
  const required: string[] = [];
  for (const [name, rule] of Object.entries(rules)) {
    if (rule.jsonSchema === undefined) throw new Error(`describeRuleSet: the rule for ${name} has no JSON Schema`);
    properties[name] = rule.jsonSchema;
    if (rule.presence === 'required') required.push(name);
  }
  return { properties, required };
}

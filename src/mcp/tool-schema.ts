/**
 * Builds each MCP tool's inputSchema from the rule set the daemon validates the same request
 * with: the rules give every property's type and constraints and which are required, the tool
 * gives only the words an agent reads and, where the tool names an argument differently from
 * the daemon (merchant_domain for merchant_name), the daemon's field name.
 */
import type { RuleSet } from '../validate/field-rule.js';
import { describeRuleSet } from '../validate/rule-json-schema.js';
import type { InputSchema, PropertySchema } from './tool-input.js';

/** How a tool presents one field: the description, and the daemon's field name when it differs. */
export interface ToolArgument {
  readonly description: string;
  readonly field?: string;
}

/** A tool's input: the schema it advertises and enforces, the daemon's rules, and argument → field names. */
export interface ToolInput {
  readonly inputSchema: InputSchema;
  readonly rules: RuleSet;
  readonly fieldOf: Readonly<Record<string, string>>;
}

/**
 * toolInput builds a tool's input from a rule set and one entry per argument, in the order the
 * agent sees them. An argument without a rule, or a rule without an argument, is a programming
 * error caught when the module loads, so the tool and the daemon take exactly the same fields.
 */
export function toolInput(rules: RuleSet, args: Readonly<Record<string, string | ToolArgument>>): ToolInput {
  const described = describeRuleSet(rules);
  const properties: Record<string, PropertySchema> = {};
  const fieldOf: Record<string, string> = {};
  const required: string[] = [];
  for (const [name, entry] of Object.entries(args)) {
    const { description, field = name } = typeof entry === 'string' ? { description: entry } : entry;
    const schema = Object.hasOwn(described.properties, field) ? described.properties[field] : undefined;
    if (schema === undefined) throw new Error(`toolInput: argument ${name} has no rule ${field}`);
    if (Object.values(fieldOf).includes(field)) throw new Error(`toolInput: rule ${field} is taken twice`);
    properties[name] = { ...schema, description };
    fieldOf[name] = field;
    if (described.required.includes(field)) required.push(name);
  }
  for (const field of Object.keys(rules)) {
    if (!Object.values(fieldOf).includes(field)) throw new Error(`toolInput: rule ${field} has no argument`);
  }
  const inputSchema: InputSchema = { type: 'object', properties, ...(required.length > 0 ? { required } : {}), additionalProperties: false };
  return { inputSchema, rules, fieldOf };
}

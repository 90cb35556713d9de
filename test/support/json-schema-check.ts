/**
 * A small JSON Schema checker for the keywords the MCP output schemas use (type, properties,
 * required, items, enum, pattern, anyOf), so tests can check real results against an advertised schema.
 */
import type { OutputSchema } from '../../src/mcp/output-schemas.js';

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

/** schemaErrors lists where value breaks schema; empty when it conforms. */
export function schemaErrors(schema: OutputSchema, value: unknown, at = '$'): string[] {
  const types = typeof schema.type === 'string' ? [schema.type] : schema.type;
  const actual = typeOf(value);
  if (!types.includes(actual) && !(actual === 'integer' && types.includes('number'))) return [`${at}: ${actual} is not ${types.join(' or ')}`];
  const errors: string[] = [];
  if (schema.anyOf !== undefined) {
    const each = schema.anyOf.map((option) => schemaErrors(option, value, at));
    if (!each.some((found) => found.length === 0)) errors.push(`${at}: matches none of anyOf (${each.map((found) => found[0]).join('; ')})`);
  }
  if (schema.enum !== undefined && !schema.enum.includes(value as string | null)) errors.push(`${at}: ${JSON.stringify(value)} is not one of ${schema.enum.join(', ')}`);
  if (schema.pattern !== undefined && typeof value === 'string' && !new RegExp(schema.pattern, 'u').test(value)) errors.push(`${at}: ${JSON.stringify(value)} does not match ${schema.pattern}`);
  if (actual === 'object') {
    const object = value as Record<string, unknown>;
    for (const name of schema.required ?? []) if (!Object.hasOwn(object, name)) errors.push(`${at}.${name}: missing`);
    for (const [name, property] of Object.entries(schema.properties ?? {})) {
      if (Object.hasOwn(object, name)) errors.push(...schemaErrors(property, object[name], `${at}.${name}`));
    }
  }
  if (actual === 'array' && schema.items !== undefined) (value as unknown[]).forEach((item, index) => errors.push(...schemaErrors(schema.items as OutputSchema, item, `${at}[${index}]`)));
  return errors;
}

/** Reading MCP tool results the way an agent does. */
import assert from 'node:assert/strict';

/**
 * toolErrorOf returns the `error` object of a tool error result: isError is true, there is no
 * structuredContent (it would have to match the tool's outputSchema; docs/decisions.md §18.1),
 * and the last text block is `{"error": {...}}`.
 */
export function toolErrorOf(result: any): Record<string, any> {
  assert.equal(result.isError, true, `an error result: ${JSON.stringify(result)}`);
  assert.equal(result.structuredContent, undefined, 'an error result carries no structuredContent');
  const last = result.content[result.content.length - 1];
  assert.equal(last.type, 'text');
  const parsed = JSON.parse(last.text);
  assert.equal(typeof parsed.error?.code, 'string', 'the last text block is {"error": {...}}');
  return parsed.error;
}

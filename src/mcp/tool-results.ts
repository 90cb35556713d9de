/** How tool outcomes are put into a tools/call result (MCP: content, structuredContent, isError). */
import type { LatchClientError } from '../client/client-errors.js';
import { approvalSummary } from './approval-guidance.js';
import { policyGuidance } from './policy-guidance.js';

/**
 * toolSuccessResult carries the daemon's JSON object as text, and as structuredContent when the
 * negotiated revision has it (2025-06-18 on), whose clients read it directly. An approval (the
 * owner has been asked, or has approved) is preceded by what the agent must do about it.
 */
export function toolSuccessResult(body: unknown, structured: boolean): Record<string, unknown> {
  const text = [...approvalSummary(body), JSON.stringify(body)].join('\n');
  const result: Record<string, unknown> = { content: [{ type: 'text', text }] };
  if (structured) result['structuredContent'] = body;
  result['isError'] = false;
  return result;
}

/**
 * toolErrorResult is a tool execution error (isError: true) that the agent can act on: the code
 * to switch on, the error's class, the message and the remedy in words, then the same fields as
 * one JSON object `{"error": {...}}` in a second text block, the CLI's `--json` error.
 *
 * It carries no structuredContent. The MCP specification makes structuredContent conform to the
 * tool's outputSchema, which describes the tool's result, and the official TypeScript SDK's
 * client (1.x) validates any structuredContent present against that schema even when isError is
 * true, rejecting the whole call with -32602: an error object there would hide the code and
 * remedy from every agent using it (docs/decisions.md §18.1).
 */
export function toolErrorResult(error: LatchClientError): Record<string, unknown> {
  const lines = [
    `Error ${error.code} (${error.specClass}): ${error.message}${error.param === undefined ? '' : ` [param: ${error.param}]`}`,
    `Remedy: ${error.remedy}`,
    ...policyGuidance(error),
  ];
  return {
    content: [
      { type: 'text', text: lines.join('\n') },
      { type: 'text', text: JSON.stringify({ error: error.toJSON() }) },
    ],
    isError: true,
  };
}

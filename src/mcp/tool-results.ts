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
 * to switch on, the spec's class, the message and the remedy, in words and as structured data.
 */
export function toolErrorResult(error: LatchClientError, structured: boolean): Record<string, unknown> {
  const lines = [
    `Error ${error.code} (${error.specClass}): ${error.message}${error.param === undefined ? '' : ` [param: ${error.param}]`}`,
    `Remedy: ${error.remedy}`,
    ...policyGuidance(error),
  ];
  const result: Record<string, unknown> = { content: [{ type: 'text', text: lines.join('\n') }] };
  if (structured) result['structuredContent'] = { error: error.toJSON() };
  result['isError'] = true;
  return result;
}

/**
 * The audit excerpt every evidence pack carries (docs/evidence.md), checked offline: each line
 * parses, its hash is the one listed, lines are in chain order, a line that follows another directly
 * names its hash in `prev`, each is about this authorization or its approval and names no other
 * request, `log_end` is at or after the last line — and the line the pack's signature needs (the
 * window's, or an x402 authorization's) is among them.
 */
import { lineHash } from '../datadir/audit-lines.js';
import { HEX64, type Json, isObject } from './pack-json.js';

/** What an excerpt is checked against. */
export interface AuditExcerptContext {
  policyId: string;
  approvalId: string | null;
  requestSha: unknown;
  /** Whether a line is the one the pack needs; `missing` is the problem when none is. */
  isRequiredLine(record: Json): boolean;
  missing: string;
}

/** checkAuditExcerpt returns the first problem of a pack's `audit` member, or undefined. */
export function checkAuditExcerpt(audit: unknown, context: AuditExcerptContext): string | undefined {
  if (!isObject(audit) || !Array.isArray(audit['lines']) || !Array.isArray(audit['line_sha256'])) return 'audit is not {lines, line_sha256, log_end}';
  const lines = audit['lines'] as unknown[];
  const hashes = audit['line_sha256'] as unknown[];
  if (lines.length !== hashes.length) return 'audit.line_sha256 does not list one hash per line';
  let previous: { seq: number; hash: string } | undefined;
  let requiredLine = false;
  for (const [index, line] of lines.entries()) {
    const where = `audit line ${index + 1}`;
    if (typeof line !== 'string') return `${where} is not text`;
    let record: unknown;
    try {
      record = JSON.parse(line);
    } catch {
      return `${where} is not JSON`;
    }
    if (!isObject(record) || !Number.isSafeInteger(record['seq']) || typeof record['prev'] !== 'string' || !HEX64.test(record['prev'])) return `${where} is not an audit record`;
    const hash = lineHash(new TextEncoder().encode(line));
    if (hashes[index] !== hash) return `${where}'s SHA-256 is not the one listed`;
    const seq = record['seq'] as number;
    if (previous !== undefined && seq <= previous.seq) return `${where} is out of chain order`;
    if (previous !== undefined && seq === previous.seq + 1 && record['prev'] !== previous.hash) return `${where} does not chain to the line before it`;
    previous = { seq, hash };
    const aboutApproval = context.approvalId !== null && record['approval_id'] === context.approvalId;
    if (record['policy_id'] !== context.policyId && !aboutApproval) return `${where} is about neither this authorization nor its approval`;
    if (record['request_sha256'] !== undefined && record['request_sha256'] !== context.requestSha) return `${where} names another request's sha256`;
    if (context.isRequiredLine(record)) requiredLine = true;
  }
  if (!requiredLine) return context.missing;
  const end = audit['log_end'];
  if (!isObject(end) || !Number.isSafeInteger(end['seq']) || typeof end['sha256'] !== 'string' || !HEX64.test(end['sha256'])) return 'audit.log_end is not {seq, sha256}';
  if (previous !== undefined && (end['seq'] as number) < previous.seq) return 'audit.log_end is before the last line';
  if (previous !== undefined && end['seq'] === previous.seq && end['sha256'] !== previous.hash) return 'audit.log_end names the last line with another hash';
  return undefined;
}

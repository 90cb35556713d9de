/**
 * The audit lines an evidence pack carries (docs/decisions.md §22): every line of audit.log that
 * names the authorization (`policy_id`) or the approval that led to it (`approval_id`), verbatim,
 * with each line's SHA-256 and the end of the chain at the time, so a verifier recomputes each
 * line's hash and sees where it sits in the device's chain.
 */
import { closeSync, constants } from 'node:fs';
import { auditLogPath, parseRecord } from '../datadir/audit-log.js';
import { lineHash, readAuditLines } from '../datadir/audit-lines.js';
import { openPrivateFile } from '../datadir/read-private-file.js';

/** The pack's `audit` member. */
export interface AuditExcerpt {
  lines: string[];
  /** SHA-256 (hex) of each line's exact UTF-8 bytes: the `prev` of the line after it in the log. */
  line_sha256: string[];
  /** The last line of the whole log when the pack was made: its seq and SHA-256. */
  log_end: { seq: number; sha256: string } | null;
}

/** At most this many lines go into one pack; an authorization has a handful. */
export const EVIDENCE_AUDIT_LINES_MAX = 1000;

/**
 * readAuditExcerpt reads audit.log once, from the start, to its last whole line (a line being
 * written meanwhile is left out). A text search for the two ids comes before any parsing, so the
 * scan costs little per line. The log's own checks (audit.head, `latch audit verify`) are not
 * repeated here: the pack shows the lines as they are, and the verifier checks what it can.
 */
export function readAuditExcerpt(home: string, ids: { policyId: string; approvalId: string | null }): AuditExcerpt {
  const excerpt: AuditExcerpt = { lines: [], line_sha256: [], log_end: null };
  const needles = [Buffer.from(`"policy_id":${JSON.stringify(ids.policyId)}`)];
  if (ids.approvalId !== null) needles.push(Buffer.from(`"approval_id":${JSON.stringify(ids.approvalId)}`));
  const opened = openPrivateFile(auditLogPath(home), constants.O_RDONLY);
  if (opened === undefined) return excerpt;
  let last: Buffer | undefined;
  try {
    for (const line of readAuditLines(opened.fd)) {
      if (!line.complete) break;
      // A copy: the reader reuses its buffer.
      last = Buffer.from(line.bytes);
      if (line.tooLong || !needles.some((needle) => line.bytes.includes(needle))) continue;
      const record = parseRecord(line.bytes);
      if (record === undefined || !names(record, ids)) continue;
      if (excerpt.lines.length >= EVIDENCE_AUDIT_LINES_MAX) break;
      excerpt.lines.push(line.bytes.toString('utf8'));
      excerpt.line_sha256.push(lineHash(line.bytes));
    }
  } finally {
    closeSync(opened.fd);
  }
  const end = last === undefined ? undefined : parseRecord(last);
  if (last !== undefined && end !== undefined) excerpt.log_end = { seq: end.seq, sha256: lineHash(last) };
  return excerpt;
}

/** names reports whether a parsed line is about the authorization or its approval (not only a text match). */
function names(record: Record<string, unknown>, ids: { policyId: string; approvalId: string | null }): boolean {
  return record['policy_id'] === ids.policyId || (ids.approvalId !== null && record['approval_id'] === ids.approvalId);
}

/**
 * The audit lines an evidence pack carries (docs/decisions.md §22): every line of audit.log that
 * names the authorization (`policy_id`) or the approval that led to it (`approval_id`), verbatim,
 * with each line's SHA-256 and the end of the chain at the time, so a verifier recomputes each
 * line's hash and sees where it sits in the device's chain.
 */
import { closeSync, constants, readSync } from 'node:fs';
import { auditLogPath, parseRecord } from '../datadir/audit-log.js';
import { AUDIT_LINE_BYTES_MAX, lineHash } from '../datadir/audit-lines.js';
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

/** How much of audit.log is read at a time. */
const CHUNK_BYTES = 1024 * 1024;
const NEWLINE = 0x0a;

/**
 * readAuditExcerpt reads audit.log once, from the start, to its last whole line (a line being
 * written meanwhile is left out). The ids are searched for in each chunk as a whole, and only the
 * lines that hold one are parsed, so the scan costs little more than reading the file (measured in
 * bench section 9). The log's own checks (audit.head, `latch audit verify`) are not repeated
 * here: the pack shows the lines as they are, and the verifier checks what it can.
 */
export function readAuditExcerpt(home: string, ids: { policyId: string; approvalId: string | null }): AuditExcerpt {
  const excerpt: AuditExcerpt = { lines: [], line_sha256: [], log_end: null };
  const needles = [Buffer.from(`"policy_id":${JSON.stringify(ids.policyId)}`)];
  if (ids.approvalId !== null) needles.push(Buffer.from(`"approval_id":${JSON.stringify(ids.approvalId)}`));
  const opened = openPrivateFile(auditLogPath(home), constants.O_RDONLY);
  if (opened === undefined) return excerpt;
  let last: Buffer | undefined;
  try {
    let carried = Buffer.alloc(0);
    let position = 0;
    const chunk = Buffer.alloc(CHUNK_BYTES);
    for (;;) {
      const read = readSync(opened.fd, chunk, 0, CHUNK_BYTES, position);
      if (read === 0) break;
      position += read;
      const region = carried.length === 0 ? chunk.subarray(0, read) : Buffer.concat([carried, chunk.subarray(0, read)]);
      const end = region.lastIndexOf(NEWLINE);
      if (end === -1) {
        // No whole line yet: keep reading, but never hold more than a line may be.
        carried = region.length > AUDIT_LINE_BYTES_MAX ? Buffer.alloc(0) : Buffer.from(region);
        continue;
      }
      const whole = region.subarray(0, end);
      for (const line of matchingLines(whole, needles)) {
        const record = parseRecord(line);
        if (record === undefined || !names(record, ids) || excerpt.lines.length >= EVIDENCE_AUDIT_LINES_MAX) continue;
        excerpt.lines.push(line.toString('utf8'));
        excerpt.line_sha256.push(lineHash(line));
      }
      last = Buffer.from(whole.subarray(whole.lastIndexOf(NEWLINE) + 1));
      carried = Buffer.from(region.subarray(end + 1));
    }
  } finally {
    closeSync(opened.fd);
  }
  const end = last === undefined ? undefined : parseRecord(last);
  if (last !== undefined && end !== undefined) excerpt.log_end = { seq: end.seq, sha256: lineHash(last) };
  return excerpt;
}

/** matchingLines returns, in order and once each, the lines of text (no newlines at either end) holding a needle. */
function matchingLines(text: Buffer, needles: readonly Buffer[]): Buffer[] {
  const starts = new Set<number>();
  for (const needle of needles) {
    for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length)) starts.add(text.lastIndexOf(NEWLINE, at) + 1);
  }
  return [...starts]
    .sort((a, b) => a - b)
    .map((start) => {
      const stop = text.indexOf(NEWLINE, start);
      return text.subarray(start, stop === -1 ? text.length : stop);
    });
}

/** names reports whether a parsed line is about the authorization or its approval (not only a text match). */
function names(record: Record<string, unknown>, ids: { policyId: string; approvalId: string | null }): boolean {
  return record['policy_id'] === ids.policyId || (ids.approvalId !== null && record['approval_id'] === ids.approvalId);
}

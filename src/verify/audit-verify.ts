import { syncFiles } from '../store/file-system.js';
import { constants } from 'node:fs';
import { HEAD_FILE_BYTES, parseHeadFile } from '../datadir/audit-head.js';
import { auditHeadPath, auditLogPath, parseRecord, type AuditHead } from '../datadir/audit-log.js';
import type { AuditRecord } from '../datadir/audit-entry.js';
import { GENESIS_HASH, lineHash } from '../datadir/audit-lines.js';
import { readAuditLines } from './audit-lines-read.js';
import { openPrivateFile, readPrivateFile } from '../datadir/read-private-file.js';
import { anchorProblem } from '../datadir/audit-anchor.js';
import { readJournalAnchor } from './journal-anchor.js';
import { loadConfig } from '../datadir/config.js';

/** The result of verifyAudit: `ok`, how many lines were checked, and the first problem found. */
export interface AuditVerification {
  ok: boolean;
  lines: number;
  problem?: { line: number; reason: string };
}

/**
 * verifyAudit checks audit.log (`latch audit verify`): every line is a whole JSON record, line n
 * has seq n, its `prev` is the SHA-256 of line n-1's exact bytes (64 zeros for line 1), and the
 * last line matches audit.head. An edited line breaks the chain at the line after it (or, for
 * the last line, the head's hash); a deleted line shows as a seq gap (or, for the last lines, a
 * head that is ahead of the log). The one state accepted besides a perfect match is a head one
 * line behind whose hash is the last line's `prev`: a crash between appending and updating the
 * head. Unsafe file permissions throw a DataDirError, as everywhere else.
 *
 * The log must also reach its anchors (audit-anchor.ts): an enrolled device's log is not empty,
 * and it holds, unchanged, the line state.journal's anchor names; so deleting both files, or
 * truncating the log and rewriting audit.head to match, is reported too.
 */
export function verifyAudit(home: string): AuditVerification {
  const headText = readPrivateFile(auditHeadPath(home), HEAD_FILE_BYTES);
  const head = headText === undefined ? undefined : parseHeadFile(headText)?.head;
  // What outside audit.log and audit.head says a record existed (audit-anchor.ts).
  const enrolled = loadConfig(home).device_id;
  const anchor = readJournalAnchor(home);
  const opened = openPrivateFile(auditLogPath(home), constants.O_RDONLY);
  if (opened === undefined) {
    if (headText !== undefined) return { ok: false, lines: 0, problem: { line: 1, reason: 'audit.log is missing but audit.head records lines: the log was deleted' } };
    const problem = anchorProblem(0, enrolled, anchor, () => undefined);
    return problem === undefined ? { ok: true, lines: 0 } : { ok: false, lines: 0, problem: { line: 1, reason: problem } };
  }
  let anchoredHash: string | undefined;
  let lines = 0;
  let previousHash = GENESIS_HASH;
  let previousPrev: string | undefined;
  let headLineHash = head?.seq === 0 ? GENESIS_HASH : undefined;
  try {
    for (const line of readAuditLines(opened.fd)) {
      const record = line.complete && !line.tooLong ? parseRecord(line.bytes) : undefined;
      const problem = checkLine(line, record, previousHash);
      if (problem !== undefined) return { ok: false, lines, problem: { line: line.number, reason: problem } };
      lines = line.number;
      previousPrev = record?.prev;
      previousHash = lineHash(line.bytes);
      if (line.number === head?.seq) headLineHash = previousHash;
      if (line.number === anchor?.seq) anchoredHash = previousHash;
    }
  } finally {
    syncFiles().closeSync(opened.fd);
  }
  const problem = checkHead(headText, head, lines, previousHash, previousPrev, headLineHash);
  if (problem !== undefined) return { ok: false, lines, problem };
  const unanchored = anchorProblem(lines, enrolled, anchor, () => anchoredHash);
  return unanchored === undefined ? { ok: true, lines } : { ok: false, lines, problem: { line: Math.min(lines + 1, anchor?.seq ?? 1), reason: unanchored } };
}

/** checkLine checks one line; record is the line parsed once by the caller (undefined when it is not one). */
function checkLine(line: { number: number; bytes: Buffer; complete: boolean; tooLong: boolean }, record: AuditRecord | undefined, previousHash: string): string | undefined {
  const n = line.number;
  if (line.tooLong) return `line ${n} is longer than any audit record`;
  if (!line.complete) return `line ${n} is incomplete (no final newline): an interrupted write or a truncated file`;
  if (record === undefined) return `line ${n} is not a valid audit record (JSON object with seq and prev)`;
  if (record.seq > n) return `line ${n} has seq ${record.seq}: ${record.seq === n + 1 ? `line ${n} was` : `lines ${n} to ${record.seq - 1} were`} deleted`;
  if (record.seq < n) return `line ${n} has seq ${record.seq}: a line was duplicated or moved`;
  if (record.prev !== previousHash) {
    return n === 1 ? 'line 1 does not start the chain (its prev is not 64 zeros)' : `line ${n} does not chain to line ${n - 1}: line ${n - 1} was edited (or this line's prev was)`;
  }
  return undefined;
}

function checkHead(headText: string | undefined, head: AuditHead | undefined, lines: number, lastHash: string, lastPrev: string | undefined, headLineHash: string | undefined): { line: number; reason: string } | undefined {
  if (headText === undefined) return lines === 0 ? undefined : { line: lines, reason: 'audit.head is missing, so deletion of the last lines cannot be ruled out' };
  if (head === undefined) return { line: Math.max(lines, 1), reason: 'audit.head is not a valid head record' };
  if (head.seq === lines && head.hash === lastHash) return undefined;
  if (head.seq === lines - 1 && head.hash === lastPrev) return undefined;
  // A crash during a group commit that announced `pending` lines after the head.
  if (head.pending !== undefined && lines > head.seq && lines <= head.seq + head.pending && head.hash === headLineHash) return undefined;
  if (head.seq > lines) {
    const missing = head.seq - lines;
    return { line: lines + 1, reason: `audit.head records ${head.seq} lines but audit.log has ${lines}: the last ${missing === 1 ? 'line was' : `${missing} lines were`} deleted` };
  }
  if (head.seq === lines) return { line: lines, reason: `line ${lines} (the last line) was edited: its hash does not match audit.head` };
  return { line: head.seq + 1, reason: `audit.log has lines after the one audit.head records (line ${head.seq}): lines were appended outside Latch, or audit.head was replaced` };
}

import { closeSync, constants, fchmodSync, fsyncSync, readSync } from 'node:fs';
import path from 'node:path';
import { writeFileAtomic, writeAll } from './atomic-file.js';
import { auditFields, type AuditEntry, type AuditRecord } from './audit-entry.js';
import { AUDIT_LINE_BYTES_MAX, GENESIS_HASH, lineHash, readAuditLines } from './audit-lines.js';
import { DataDirError, shellQuote } from './data-dir-error.js';
import { DATA_FILES, PRIVATE_FILE_MODE, dataFilePath } from './home.js';
import { openPrivateFile, readPrivateFile } from './read-private-file.js';

/**
 * audit.log holds one JSON line per signature (decisions §11). Each line starts with `seq`
 * (1, 2, 3, ...) and `prev`, the SHA-256 of the previous line's exact bytes, so an edited,
 * deleted or reordered line breaks the chain. A chain alone cannot show that its LAST lines were
 * removed, so audit.head records the last line's seq and hash, replaced atomically after each
 * append. Both files are plain SHA-256, not keyed: they detect accidents and naive edits, not
 * someone able to rewrite both files (SECURITY.md says so).
 *
 * Appends are synchronous, so appends from one process never interleave. Only the daemon
 * appends; two daemons sharing one data directory would fork the chain, which verifyAudit reports.
 */

/** audit.head: where the log ended after the last completed append. */
export interface AuditHead {
  seq: number;
  hash: string;
}

/** What appendAudit wrote: the record and the hash of its line. */
export interface AuditAppendResult {
  record: AuditRecord;
  hash: string;
}

const HEAD_FILE_BYTES_MAX = 256;
const HASH_SHAPE = /^[0-9a-f]{64}$/;

/** auditLogPath returns the path of audit.log. */
export function auditLogPath(home: string): string {
  return dataFilePath(home, DATA_FILES.auditLog);
}

/** auditHeadPath returns the path of audit.head. */
export function auditHeadPath(home: string): string {
  return dataFilePath(home, DATA_FILES.auditHead);
}

/**
 * appendAudit appends one entry to audit.log and returns only once the line is on disk (fsync),
 * then records the new head. It refuses (DataDirError) to append to a log that does not match
 * audit.head, because continuing would overwrite the evidence that lines were removed: signing
 * stops until the user has looked (`latch audit verify`) and moved the files aside.
 */
export function appendAudit(home: string, entry: AuditEntry, now: Date = new Date()): AuditAppendResult {
  const fields = auditFields(entry, now);
  const file = auditLogPath(home);
  const opened = openPrivateFile(file, constants.O_RDWR | constants.O_APPEND | constants.O_CREAT);
  if (opened === undefined) throw new Error('audit.log could not be created');
  const { fd, stats } = opened;
  try {
    // A log we just created may have lost mode bits to the umask; it is new and only ours.
    if (stats.size === 0 && process.platform !== 'win32') fchmodSync(fd, PRIVATE_FILE_MODE);
    const tail = readTail(fd, stats.size, file);
    assertHeadMatches(home, tail);
    const record = { seq: tail.seq + 1, prev: tail.hash, ...fields } as AuditRecord;
    const text = JSON.stringify(record);
    const bytes = Buffer.from(text, 'utf8');
    if (bytes.length > AUDIT_LINE_BYTES_MAX) throw new TypeError('audit entry is too large');
    writeAll(fd, Buffer.concat([bytes, Buffer.from('\n')]));
    fsyncSync(fd);
    const hash = lineHash(bytes);
    writeFileAtomic(auditHeadPath(home), `${JSON.stringify({ seq: record.seq, hash })}\n`);
    return { record, hash };
  } finally {
    closeSync(fd);
  }
}

/**
 * assertAuditAppendable checks, without writing, that the next appendAudit would succeed as far
 * as the files go: the log ends with a whole line and matches audit.head. The daemon calls it at
 * start so that a damaged log is reported before the first signature, not during it.
 */
export function assertAuditAppendable(home: string): void {
  const file = auditLogPath(home);
  const opened = openPrivateFile(file, constants.O_RDONLY);
  if (opened === undefined) {
    assertHeadMatches(home, { seq: 0, hash: GENESIS_HASH, prev: undefined });
    return;
  }
  try {
    assertHeadMatches(home, readTail(opened.fd, opened.stats.size, file));
  } finally {
    closeSync(opened.fd);
  }
}

/**
 * readAudit returns the records of audit.log in order (the last `limit` of them when given). It
 * reads but does not verify the chain (verifyAudit does), and throws a DataDirError on a line
 * that is not a JSON object.
 */
export function readAudit(home: string, options: { limit?: number } = {}): AuditRecord[] {
  const file = auditLogPath(home);
  const opened = openPrivateFile(file, constants.O_RDONLY);
  if (opened === undefined) return [];
  const limit = options.limit ?? Number.POSITIVE_INFINITY;
  const records: AuditRecord[] = [];
  try {
    for (const line of readAuditLines(opened.fd)) {
      const record = line.tooLong ? undefined : parseRecord(line.bytes);
      if (record === undefined) throw corruptLog(file, `line ${line.number} of audit.log is not a valid record`);
      records.push(record);
      if (records.length > limit) records.shift();
    }
  } finally {
    closeSync(opened.fd);
  }
  return records;
}

/** readAuditHead returns audit.head, or undefined when there is none; a malformed head is a DataDirError. */
export function readAuditHead(home: string): AuditHead | undefined {
  const file = auditHeadPath(home);
  const text = readPrivateFile(file, HEAD_FILE_BYTES_MAX);
  if (text === undefined) return undefined;
  const head = parseHead(text);
  if (head === undefined) throw corruptLog(file, 'audit.head is not a valid head record');
  return head;
}

/** parseHead validates the text of audit.head. */
export function parseHead(text: string): AuditHead | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const { seq, hash } = value as Record<string, unknown>;
  if (!Number.isSafeInteger(seq) || (seq as number) < 1 || typeof hash !== 'string' || !HASH_SHAPE.test(hash)) return undefined;
  return { seq: seq as number, hash };
}

/** parseRecord parses one line's bytes into a record, or returns undefined when it is not one. */
export function parseRecord(bytes: Uint8Array): AuditRecord | undefined {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(bytes).toString('utf8'));
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const record = value as Record<string, unknown>;
  if (!Number.isSafeInteger(record['seq']) || (record['seq'] as number) < 1) return undefined;
  if (typeof record['prev'] !== 'string' || !HASH_SHAPE.test(record['prev'])) return undefined;
  return record as AuditRecord;
}

interface Tail {
  /** The last line's seq, 0 for an empty log. */
  seq: number;
  /** The last line's hash, GENESIS_HASH for an empty log. */
  hash: string;
  /** The last line's `prev`, for the crash check against audit.head. */
  prev: string | undefined;
}

function readTail(fd: number, size: number, file: string): Tail {
  if (size === 0) return { seq: 0, hash: GENESIS_HASH, prev: undefined };
  // The last line, its newline and the newline before it fit in this many bytes.
  const length = Math.min(size, AUDIT_LINE_BYTES_MAX + 2);
  const buffer = Buffer.alloc(length);
  const read = readSync(fd, buffer, 0, length, size - length);
  if (read !== length) throw corruptLog(file, 'audit.log changed while it was read');
  if (buffer[length - 1] !== 0x0a) throw corruptLog(file, 'audit.log ends with an incomplete line (an interrupted write)');
  const before = buffer.lastIndexOf(0x0a, length - 2);
  if (before === -1 && length < size) throw corruptLog(file, 'the last line of audit.log is too long');
  const bytes = buffer.subarray(before + 1, length - 1);
  const record = parseRecord(bytes);
  if (record === undefined) throw corruptLog(file, 'the last line of audit.log is not a valid record');
  return { seq: record.seq, hash: lineHash(bytes), prev: record.prev };
}

function assertHeadMatches(home: string, tail: Tail): void {
  const head = readAuditHead(home);
  if (head === undefined) {
    if (tail.seq === 0) return;
    throw corruptLog(auditHeadPath(home), 'audit.head is missing while audit.log has lines');
  }
  if (head.seq === tail.seq && head.hash === tail.hash) return;
  // A crash between the line's fsync and the head's rename leaves the head one line behind.
  if (head.seq === tail.seq - 1 && head.hash === tail.prev) return;
  throw corruptLog(auditLogPath(home), `audit.log does not match audit.head (head records line ${head.seq}, the log ends at line ${tail.seq}): lines were removed or edited`);
}

function corruptLog(file: string, problem: string): DataDirError {
  const home = path.dirname(file);
  const moves = [auditLogPath(home), auditHeadPath(home)].map((target) => `mv ${shellQuote(target)} ${shellQuote(`${target}.broken`)}`);
  return new DataDirError('corrupt', file, problem, `run \`latch audit verify\` to see what changed, keep the files as evidence, and start a new log: ${moves.join(' && ')}`);
}

import { syncFiles } from '../store/file-system.js';
import { constants } from 'node:fs';
import path from 'node:path';
import { HEAD_FILE_BYTES, parseHeadFile, type AuditHead, type AuditHeadState } from './audit-head.js';
import type { AuditRecord, AuditValue } from './audit-entry.js';
import { AUDIT_LINE_BYTES_MAX, GENESIS_HASH, lineHash } from './audit-lines.js';
export { AUDIT_BATCH_ENTRIES_MAX, parseHead, type AuditHead, type AuditHeadState } from './audit-head.js';
import { assertAnchoredTail } from './audit-anchor-rule.js';
import { DataDirError, shellQuote } from './data-dir-error.js';
import { DATA_FILES, PRIVATE_FILE_MODE, dataFilePath } from './data-files.js';
import { openPrivateFile, readPrivateFile } from './read-private-file.js';

/**
 * audit.log holds one JSON line per signature (docs/decisions.md §11). Each line starts with `seq`
 * (1, 2, 3, ...) and `prev`, the SHA-256 of the previous line's exact bytes, so an edited,
 * deleted or reordered line breaks the chain. A chain alone cannot show that its LAST lines were
 * removed, so audit.head records the last line's seq and hash, written into one of its two slots
 * (audit-head.ts) so that a torn write leaves the previous head readable. Both files are plain
 * SHA-256, not keyed: they detect accidents and naive edits, not someone able to rewrite both
 * files (SECURITY.md says so).
 *
 * One appender writes these lines: the AuditWriter (audit-writer.ts), which appends with group
 * commit (entries that arrive while a commit is on its way to the disk are written together by
 * the next one, with one fsync) and settles each caller's promise only once its line is on disk.
 * A commit the head would not cover first announces itself in audit.head (`pending`, a
 * reservation of a batch of lines: see createAuditWriter), so that a crash in the middle leaves a
 * head that says which lines may follow it; lines after a head that announced none are still
 * refused beyond the one-line crash window. This file holds what the writer builds on: the
 * format, the chain, reading the last line and checking it against audit.head. Across processes
 * audit.lock (audit-lock.ts) keeps appends one at a time. Only the daemon and a few CLI commands
 * append; two daemons sharing one data directory would fork the chain, which verifyAudit reports.
 */

/** What an append wrote: the record and the hash of its line. */
export interface AuditAppendResult {
  record: AuditRecord;
  hash: string;
}

const CHUNK_BYTES = 64 * 1024;
const NEWLINE = Buffer.from('\n');
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
 * openForAppend opens audit.log for appending with the private-file checks, and reads its last
 * line, which must match audit.head (returned too). The caller closes fd.
 */
export function openForAppend(home: string): { fd: number; size: number; tail: Tail; head: AuditHead | undefined; headState: AuditHeadState | undefined } {
  const file = auditLogPath(home);
  const opened = openPrivateFile(file, constants.O_RDWR | constants.O_APPEND | constants.O_CREAT);
  if (opened === undefined) throw new Error('audit.log could not be created');
  const { fd, stats } = opened;
  try {
    // A log we just created may have lost mode bits to the umask; it is new and only ours.
    if (stats.size === 0 && process.platform !== 'win32') syncFiles().fchmodSync(fd, PRIVATE_FILE_MODE);
    const tail = readTail(fd, stats.size, file);
    const headState = assertHeadMatches(home, tail, { fd, size: stats.size });
    // Deleting both files, or cutting the log and rewriting the head, must not start a new chain
    // that verifies (audit-anchor.ts).
    assertAnchoredTail(home, tail.seq);
    return { fd, size: stats.size, tail, head: headState?.head, headState };
  } catch (error) {
    syncFiles().closeSync(fd);
    throw error;
  }
}

/**
 * An entry's fields with their JSON text, serialised once when the entry is accepted: the line is
 * that text with `seq` and `prev` put in front (see chainRecords), so a line is never serialised
 * twice. The fields always hold `time` and `operation`, and never `seq` or `prev`.
 */
export interface SerializedFields {
  fields: Record<string, AuditValue>;
  json: string;
}

/** The widest `{"seq":…,"prev":"…",` a line can start with. */
const WIDEST_PREFIX_BYTES = Buffer.byteLength(`{"seq":${Number.MAX_SAFE_INTEGER},"prev":"${GENESIS_HASH}",`, 'utf8');

/**
 * serializeFields serialises fields once and refuses, before anything is queued or written,
 * fields whose line would exceed AUDIT_LINE_BYTES_MAX even with the largest seq, so that one
 * oversized entry cannot fail a whole commit.
 */
export function serializeFields(fields: Record<string, AuditValue>): SerializedFields {
  const json = JSON.stringify(fields);
  if (WIDEST_PREFIX_BYTES + Buffer.byteLength(json, 'utf8') - 1 > AUDIT_LINE_BYTES_MAX) throw new TypeError('audit entry is too large');
  return { fields, json };
}

/**
 * chainRecords numbers and chains entries after tail, and returns their lines' bytes (newlines
 * included). Each line is exactly JSON.stringify({ seq, prev, ...fields }): the field names are
 * lower-case words (never array indexes, which JSON would put first), so putting the prefix in
 * front of the fields' own text gives the same bytes (a test compares them).
 */
export function chainRecords(tail: Tail, entries: SerializedFields[]): { bytes: Buffer; results: AuditAppendResult[] } {
  const parts: Buffer[] = [];
  const results: AuditAppendResult[] = [];
  let seq = tail.seq;
  let prev = tail.hash;
  for (const { fields, json } of entries) {
    seq += 1;
    const bytes = Buffer.from(`{"seq":${seq},"prev":"${prev}",${json.slice(1)}`, 'utf8');
    if (bytes.length > AUDIT_LINE_BYTES_MAX) throw new TypeError('audit entry is too large');
    const record = { seq, prev, ...fields } as AuditRecord;
    prev = lineHash(bytes);
    parts.push(bytes, NEWLINE);
    results.push({ record, hash: prev });
  }
  return { bytes: Buffer.concat(parts), results };
}

/**
 * assertAuditAppendable checks, without writing, that the next append would succeed as far
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
    assertHeadMatches(home, readTail(opened.fd, opened.stats.size, file), { fd: opened.fd, size: opened.stats.size });
  } finally {
    syncFiles().closeSync(opened.fd);
  }
}

/** readAuditHeadState is readAuditHead with the head's commit number and format, for the next write. */
export function readAuditHeadState(home: string): AuditHeadState | undefined {
  const file = auditHeadPath(home);
  const text = readPrivateFile(file, HEAD_FILE_BYTES);
  if (text === undefined) return undefined;
  const state = parseHeadFile(text);
  if (state === undefined) throw corruptLog(file, 'audit.head is not a valid head record');
  return state;
}

/** parseRecord parses one line's bytes into a record, or returns undefined when it is not one. */
export function parseRecord(bytes: Uint8Array): AuditRecord | undefined {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'));
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const record = value as Record<string, unknown>;
  if (!Number.isSafeInteger(record['seq']) || (record['seq'] as number) < 1) return undefined;
  if (typeof record['prev'] !== 'string' || !HASH_SHAPE.test(record['prev'])) return undefined;
  return record as AuditRecord;
}

export interface Tail {
  /** The last line's seq, 0 for an empty log. */
  seq: number;
  /** The last line's hash, GENESIS_HASH for an empty log. */
  hash: string;
  /** The last line's `prev`, for the crash check against audit.head. */
  prev: string | undefined;
}

/** readTail reads the last line of an open audit.log of `size` bytes; a torn or invalid last line is a DataDirError. */
export function readTail(fd: number, size: number, file: string): Tail {
  if (size === 0) return { seq: 0, hash: GENESIS_HASH, prev: undefined };
  // The last line, its newline and the newline before it fit in this many bytes.
  const length = Math.min(size, AUDIT_LINE_BYTES_MAX + 2);
  const buffer = Buffer.alloc(length);
  const read = syncFiles().readSync(fd, buffer, 0, length, size - length);
  if (read !== length) throw corruptLog(file, 'audit.log changed while it was read');
  if (buffer[length - 1] !== 0x0a) throw tornLog(file, size, buffer);
  const before = buffer.lastIndexOf(0x0a, length - 2);
  if (before === -1 && length < size) throw corruptLog(file, 'the last line of audit.log is too long');
  const bytes = buffer.subarray(before + 1, length - 1);
  const record = parseRecord(bytes);
  if (record === undefined) throw corruptLog(file, 'the last line of audit.log is not a valid record');
  return { seq: record.seq, hash: lineHash(bytes), prev: record.prev };
}

/** assertHeadMatches checks audit.head against the log's last line (log: the open log, when there is one). */
function assertHeadMatches(home: string, tail: Tail, log?: { fd: number; size: number }): AuditHeadState | undefined {
  const state = readAuditHeadState(home);
  if (state === undefined) {
    if (tail.seq === 0) return state;
    throw corruptLog(auditHeadPath(home), 'audit.head is missing while audit.log has lines');
  }
  const { head } = state;
  if (head.seq === tail.seq && head.hash === tail.hash) return state;
  // A crash between the line's fsync and the head's write leaves the head one line behind.
  if (head.seq === tail.seq - 1 && head.hash === tail.prev) return state;
  // A crash during an announced group commit leaves up to `pending` lines after the head; the
  // line the head names must still be there, unchanged.
  if (head.pending !== undefined && tail.seq > head.seq && tail.seq <= head.seq + head.pending && log !== undefined && hashOfLineBefore(log.fd, log.size, tail.seq - head.seq) === head.hash) return state;
  throw corruptLog(auditLogPath(home), `audit.log does not match audit.head (head records line ${head.seq}, the log ends at line ${tail.seq}): lines were removed or edited`);
}

/**
 * hashOfLineBefore returns the hash of the line `back` lines before the last one (GENESIS_HASH
 * when that is before the first line), reading the log backwards in chunks. A commit adds at
 * most AUDIT_BATCH_ENTRIES_MAX lines, so this reads little however long the log is. The log ends
 * with a newline (readTail checked).
 */
export function hashOfLineBefore(fd: number, size: number, back: number): string | undefined {
  // Newlines from the end: the 0th ends the last line, the back-th ends the line wanted, and the
  // (back + 1)-th (or the start of the file) comes just before it.
  const readMax = (back + 1) * (AUDIT_LINE_BYTES_MAX + 1) + 1;
  let chunks: Buffer[] = [];
  let start = size;
  let seen = -1;
  let end = -1;
  while (start > 0 && size - start < readMax) {
    const length = Math.min(CHUNK_BYTES, start);
    const chunk = Buffer.alloc(length);
    if (syncFiles().readSync(fd, chunk, 0, length, start - length) !== length) return undefined;
    start -= length;
    chunks = [chunk, ...chunks];
    for (let index = length - 1; index >= 0; index -= 1) {
      if (chunk[index] !== 0x0a) continue;
      seen += 1;
      if (seen === back) end = start + index;
      if (seen === back + 1) return lineHash(Buffer.concat(chunks).subarray(start + index + 1 - start, end - start));
    }
  }
  if (start > 0) return undefined;
  if (seen === back) return lineHash(Buffer.concat(chunks).subarray(0, end));
  return seen === back - 1 ? GENESIS_HASH : undefined;
}

/**
 * tornLog refuses a log whose last line is incomplete, as a power cut during a write leaves it.
 * Such a line was never acknowledged (its fdatasync had not returned), so the fix it names keeps
 * the chain: a copy for evidence, then the file cut back to its last whole line. The start checks
 * what is left against audit.head and the anchor as always, so a cut that removes more than the
 * torn line is still refused (docs/decisions.md §46).
 */
function tornLog(file: string, size: number, tail: Buffer): DataDirError {
  const lastNewline = tail.lastIndexOf(0x0a);
  const problem = 'audit.log ends with an incomplete line (an interrupted write)';
  // A fragment longer than any line is not a torn write of one.
  if (lastNewline === -1 && tail.length < size) return corruptLog(file, problem);
  const whole = size - tail.length + lastNewline + 1;
  const copy = `${file}.torn`;
  return new DataDirError('corrupt', file, problem, `the machine stopped while the last line was being written, so that line was never acknowledged: keep a copy and cut the file back to its last whole line (cp ${shellQuote(file)} ${shellQuote(copy)} && truncate -s ${whole} ${shellQuote(file)}), then start again; the daemon checks the rest against audit.head and state.journal before it signs`);
}

export function corruptLog(file: string, problem: string): DataDirError {
  const home = path.dirname(file);
  const moves = [auditLogPath(home), auditHeadPath(home)].map((target) => `mv ${shellQuote(target)} ${shellQuote(`${target}.broken`)}`);
  return new DataDirError('corrupt', file, problem, `run \`latch audit verify\` to see what changed, keep the files as evidence, and start a new log: ${moves.join(' && ')}`);
}

/**
 * One commit of the audit writer (audit-writer.ts) and the checks around it: announce when the
 * head would not cover the lines after a crash, write, fdatasync; settle the head; and refuse a
 * log that no longer reaches the last line this process wrote (docs/decisions.md §16.1, §41).
 */
import { syncFiles } from '../store/file-system.js';
import { writeAll } from './atomic-file.js';
import { writeHead, type AuditHead, type AuditHeadState } from './audit-head.js';
import { DataDirError } from './data-dir-error.js';
import { AUDIT_BATCH_ENTRIES_MAX, auditHeadPath, auditLogPath, chainRecords, corruptLog, hashOfLineBefore, type AuditAppendResult, type SerializedFields, type Tail } from './audit-log.js';

/** What a commit reports to the writer's test hooks, and how it makes lines durable. */
export interface CommitHooks {
  /** Called once a commit is announced in audit.head, before its lines are written (for tests). */
  onAnnounce?: (entries: number) => void;
  /** Called when the head is settled to name the last line (for tests). */
  onSettle?: () => void;
  /** Makes the written lines durable; fdatasync off the event loop unless a test injects a failure. */
  sync?: (fd: number) => Promise<void>;
}

const fdatasyncAsync = (fd: number) => syncFiles().fdatasync(fd);

/** The log as a burst knows it: the open file, its last line, and what audit.head says. */
export interface OpenLog {
  fd: number;
  tail: Tail;
  headState: AuditHeadState | undefined;
}

/**
 * commitBatch appends lines after the log's end: announce when needed, write, fdatasync off the
 * event loop. A commit is announced only when the head would not cover its lines after a crash
 * (headCovers); the announcement then reserves AUDIT_BATCH_ENTRIES_MAX lines, so the commits
 * that follow in the same burst need no head write until they pass it (docs/decisions.md §16.1).
 */
export async function commitBatch(home: string, log: OpenLog, fieldsList: SerializedFields[], options: CommitHooks, breakWriter: (error: unknown) => void): Promise<{ log: OpenLog; results: AuditAppendResult[] }> {
  const chained = chainRecords(log.tail, fieldsList);
  let headState = log.headState;
  if (!headCovers(headState?.head, log.tail.seq + fieldsList.length)) {
    headState = await writeHead(auditHeadPath(home), headState, { seq: log.tail.seq, hash: log.tail.hash, pending: AUDIT_BATCH_ENTRIES_MAX });
    options.onAnnounce?.(fieldsList.length);
  }
  // Writing to the page cache is quick; the fdatasync is what waits for the disk (it covers
  // the new size, which is all the metadata an append changes that a reader needs).
  // From the first byte written, what the file holds is no longer known if this fails: the
  // writer stops rather than chain later lines after lines that may not be on disk.
  try {
    writeAll(log.fd, chained.bytes);
    await (options.sync ?? fdatasyncAsync)(log.fd);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unknown';
    const failed = new DataDirError('write_failed', auditLogPath(home), `audit.log could not be written (${code}); nothing more is signed until the daemon starts again`, 'check the disk (free space, errors), then restart the daemon, which checks audit.log before signing');
    breakWriter(failed);
    throw failed;
  }
  const last = chained.results[chained.results.length - 1] as AuditAppendResult;
  return { log: { fd: log.fd, tail: { seq: last.record.seq, hash: last.hash, prev: last.record.prev }, headState }, results: chained.results };
}

/**
 * assertReachesWritten refuses a log that ends before the last line this writer wrote, or differs
 * at it (a log far past it, another process's many lines, is only checked by its end).
 */
export function assertReachesWritten(home: string, fd: number, size: number, tail: Tail, written: { seq: number; hash: string } | undefined): void {
  if (written === undefined) return;
  const back = tail.seq - written.seq;
  const problem =
    back < 0
      ? `audit.log ends at line ${tail.seq}, but this process wrote line ${written.seq} to it: lines were removed`
      : back <= AUDIT_BATCH_ENTRIES_MAX && (back === 0 ? tail.hash : hashOfLineBefore(fd, size, back)) !== written.hash
        ? `line ${written.seq} of audit.log is not the line this process wrote: the log was replaced or edited`
        : undefined;
  if (problem !== undefined) throw corruptLog(auditLogPath(home), problem);
}

/**
 * headCovers says whether a crash that leaves the log ending at line `end` would still be
 * accepted with this head: the head names a line at most one before it, or announced a commit
 * whose lines reach it. The head never names a line after the log's current end.
 */
function headCovers(head: AuditHead | undefined, end: number): boolean {
  if (head === undefined) return false;
  if (head.pending === undefined) return head.seq >= 1 && end <= head.seq + 1;
  return end <= head.seq + head.pending;
}

/**
 * settleHead makes audit.head name the log's last line once the writer has nothing to do (or
 * lets go of the lock). A failure is left for the next commit to meet and report: the head it
 * leaves is one a crash could have left, which the checks accept.
 */
export async function settleHead(home: string, log: OpenLog, options: CommitHooks): Promise<void> {
  const head = log.headState?.head;
  if (log.tail.seq === 0 || (head?.seq === log.tail.seq && head.pending === undefined)) return;
  try {
    await writeHead(auditHeadPath(home), log.headState, { seq: log.tail.seq, hash: log.tail.hash });
    options.onSettle?.();
  } catch {
    // See above: the next burst checks the files again and fails closed.
  }
}


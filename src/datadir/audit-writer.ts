import { syncFiles } from '../store/file-system.js';
import path from 'node:path';
import { auditFields, type AuditEntry } from './audit-entry.js';
import { assertReachesWritten, commitBatch, settleHead, type CommitHooks, type OpenLog } from './audit-commit.js';
import { AUDIT_BATCH_ENTRIES_MAX, serializeFields, openForAppend, type AuditAppendResult, type SerializedFields } from './audit-log.js';
import { AUDIT_LOCK_RETRY_MS, withAuditLock } from './audit-lock.js';
export { AUDIT_BATCH_ENTRIES_MAX };

/*
 * The one writer of audit.log (the format, the chain and the checks against audit.head are in
 * audit-log.ts): asynchronous and group-committing, so that an fsync never blocks the event loop
 * and concurrent signatures share one. Every append, the daemon's and a CLI command's, goes
 * through sharedAuditWriter; audit.lock (audit-lock.ts) keeps another process's writer out while
 * a burst of commits is written.
 */

/** An AuditWriter appends to one data directory's audit.log with group commit. */
export interface AuditWriter {
  /**
   * append resolves once entry's line is on disk (fsync) and audit.head covers it: the head names
   * that line, or an earlier line from which it announced this commit, or the line just before
   * it — each a state the checks accept after a crash, so the line can never be lost unnoticed.
   * A malformed entry rejects with a TypeError and affects no other entry; a damaged log
   * (DataDirError) or a failed write rejects every entry of that commit, and nothing is
   * acknowledged that is not on disk.
   */
  append(entry: AuditEntry, now?: Date): Promise<AuditAppendResult>;
  /**
   * appendDeferred is append for a line no answer waits for (an authorization's outcome): it
   * starts no commit of its own but joins the next one, which an append starts, and is written at
   * the latest AUDIT_DEFER_MS after it was queued, or at idle() (docs/decisions.md §41). It
   * resolves, like append, once the line is on disk; a crash before that loses only lines nobody
   * was told were written.
   */
  appendDeferred(entry: AuditEntry, now?: Date): Promise<AuditAppendResult>;
  /**
   * holdReservation keeps audit.head's reservation between bursts for up to ms after the last one
   * instead of settling it at each burst's end (the daemon's writer: docs/decisions.md §41); 0,
   * the default, settles at every burst's end (a CLI command, which exits after its append).
   */
  holdReservation(ms: number): void;
  /**
   * idle writes every queued line (deferred ones too), settles audit.head to name the last line,
   * and resolves once nothing is queued or being written.
   */
  idle(): Promise<void>;
}

export interface AuditWriterOptions extends CommitHooks {
  /** Called after each successful commit with its number of entries (for tests and benchmarks). */
  onCommit?: (entries: number) => void;
  /** Called when a burst starts: audit.lock taken, the log opened and checked (for tests). */
  onBurst?: () => void;
  /** The longest a deferred line waits for a commit to join (default AUDIT_DEFER_MS; the simulator shortens it). */
  deferMs?: number;
}

/** The most entries waiting for a commit; beyond that append rejects rather than queue without bound. */
export const AUDIT_PENDING_ENTRIES_MAX = 4096;

/**
 * The most commits one taking of audit.lock covers. The writer keeps the lock over a burst so
 * that a commit does not pay for creating and removing it, and lets it go at this bound (or when
 * the queue empties) so that a CLI command's append waits for a burst, not for a busy daemon.
 */
export const AUDIT_LOCK_HOLD_COMMITS_MAX = 32;

/**
 * How long a burst waits for another append before it lets go of audit.lock (docs/decisions.md
 * §26.3): a caller answered by a commit often appends again a loopback round trip later.
 */
export const AUDIT_LINGER_MS = 2;

/**
 * The longest a deferred line waits for a commit to join before one of its own writes it. At one
 * client the next request's line comes a few milliseconds later (docs/decisions.md §41).
 */
export const AUDIT_DEFER_MS = 50;

/** How long the daemon's writer keeps audit.head's reservation after its last burst: as long as the anchor may lag. */
export const AUDIT_RESERVATION_HOLD_MS = 1000;

interface PendingEntry {
  entry: SerializedFields;
  resolve: (result: AuditAppendResult) => void;
  reject: (error: unknown) => void;
  /** Appended with appendDeferred: starts no commit. */
  deferred: boolean;
}

/**
 * createAuditWriter returns a writer for home. An append starts a commit as soon as the writer is
 * idle; entries that arrive during a commit form the next one, with one fdatasync of the log for
 * all of them, off the event loop. A commit the head would not cover after a crash is announced
 * first (audit-commit.ts, docs/decisions.md §16.1). The head is settled on the last line when a
 * burst ends, or, for the daemon's writer (holdReservation), once it has been quiet (§41).
 */
export function createAuditWriter(home: string, options: AuditWriterOptions = {}): AuditWriter {
  const key = path.resolve(home);
  const deferMs = options.deferMs ?? AUDIT_DEFER_MS;
  const pending: PendingEntry[] = [];
  const idleWaiters: Array<() => void> = [];
  let running = false;
  /** How many queued entries were appended with append (an answer waits for each). */
  let urgent = 0;
  /** Write every queued line, deferred ones too (their bound passed, or idle() asked). */
  let flushWanted = false;
  /** Settle audit.head once the queue is written (the hold ended, or idle() asked). */
  let settleWanted = false;
  /** audit.head may still hold a reservation this writer announced (a burst ended without settling). */
  let reserved = false;
  let holdMs = 0;
  let deferTimer: NodeJS.Timeout | undefined;
  let settleTimer: NodeJS.Timeout | undefined;
  /**
   * Set once a write or fdatasync of the log failed: every append is refused until the process
   * starts again and reads the file as it really is (docs/decisions.md §26.1).
   */
  let broken: unknown;
  /** Ends the burst's wait for another append (set while it lingers). */
  let wakeLinger: (() => void) | undefined;
  /** The last line this writer wrote: the log must still reach it, unchanged (§41). */
  let lastWritten: { seq: number; hash: string } | undefined;

  /** Lines to write now: one an answer waits for, or any at all once a flush is wanted. */
  const commitDue = () => urgent > 0 || (flushWanted && pending.length > 0);
  const burstDue = () => commitDue() || settleWanted;

  /** take removes the next commit's entries from the queue (deferred ones ride along, in order). */
  const take = (count: number): PendingEntry[] => {
    const batch = pending.splice(0, count);
    urgent -= batch.filter((item) => !item.deferred).length;
    if (pending.length === 0) flushWanted = false;
    if (pending.length === urgent && deferTimer !== undefined) {
      // No deferred line is left waiting: its bound starts again with the next one.
      clearTimeout(deferTimer);
      deferTimer = undefined;
    }
    return batch;
  };

  /** linger resolves after AUDIT_LINGER_MS, or as soon as an entry someone waits for is appended. */
  const linger = () =>
    new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        wakeLinger = undefined;
        resolve();
      };
      const timer = setTimeout(done, AUDIT_LINGER_MS);
      wakeLinger = done;
    });

  /**
   * commitBurst commits what is due, up to AUDIT_LOCK_HOLD_COMMITS_MAX commits, under one taking
   * of the lock; the log is opened and checked against audit.head once, when the burst starts.
   */
  const commitBurst = async (): Promise<void> => {
    const opened = openForAppend(home);
    options.onBurst?.();
    let log: OpenLog = { fd: opened.fd, tail: opened.tail, headState: opened.headState };
    try {
      // A held reservation accepts a log cut back inside it; this writer's memory does not.
      assertReachesWritten(home, log.fd, opened.size, log.tail, lastWritten);
      for (let commits = 0; commitDue() && commits < AUDIT_LOCK_HOLD_COMMITS_MAX; commits += 1) {
        const batch = take(AUDIT_BATCH_ENTRIES_MAX);
        try {
          if (broken !== undefined) throw broken;
          const committed = await commitBatch(home, log, batch.map((item) => item.entry), options, (error) => (broken ??= error));
          log = committed.log;
          lastWritten = { seq: log.tail.seq, hash: log.tail.hash };
          reserved = true;
          options.onCommit?.(batch.length);
          batch.forEach((item, index) => item.resolve(committed.results[index] as AuditAppendResult));
        } catch (error) {
          for (const item of batch) item.reject(error);
          // What reached the file is no longer known here: the next burst reads it again.
          return;
        }
        // Callers that were waiting on this commit often append again at once; one turn of the
        // event loop lets them join the next commit instead of each starting a commit alone.
        await new Promise<void>((resolve) => setImmediate(resolve));
        // Wait for the caller's next request (§26.3), not after the burst's last commit. A
        // deferred line does not end the wait: it waits for the next commit, not the other way round.
        if (!commitDue() && commits + 1 < AUDIT_LOCK_HOLD_COMMITS_MAX) await linger();
      }
      // The daemon's writer keeps the head's reservation between bursts (§41); a CLI command's settles at once, and
      // a settle asked for (idle(), the hold's end) waits for the burst that leaves nothing due (§45).
      if (holdMs === 0 || (settleWanted && !commitDue())) {
        settleWanted = false;
        await settleHead(home, log, options);
        reserved = false;
      }
    } finally {
      syncFiles().closeSync(log.fd);
    }
  };

  /** armTimers: a deferred line is written within its bound, a held reservation settled after its hold. */
  const armTimers = () => {
    if (pending.length > urgent && deferTimer === undefined) {
      deferTimer = setTimeout(() => {
        deferTimer = undefined;
        flushWanted = true;
        if (!running) void run();
      }, deferMs);
    }
    if (reserved && holdMs > 0 && !running && settleTimer === undefined) {
      // Unreferenced: a process that is done may exit with the reservation held, a state a crash
      // leaves too, which every check accepts (the daemon's close calls idle(), which settles).
      settleTimer = setTimeout(() => {
        settleTimer = undefined;
        settleWanted = true;
        if (!running) void run();
      }, holdMs).unref();
    }
  };

  const run = async (): Promise<void> => {
    running = true;
    if (settleTimer !== undefined) clearTimeout(settleTimer);
    settleTimer = undefined;
    try {
      while (burstDue()) {
        // Settling means the writer goes quiet: what is deferred is written first.
        if (settleWanted && pending.length > 0) flushWanted = true;
        try {
          if (broken !== undefined) throw broken;
          // audit.lock makes the burst the only appender of any process, this one included.
          await withAuditLock(key, commitBurst);
        } catch (error) {
          // The lock was not to be had: the entries that would have gone first fail, as their commit would.
          // A broken writer refuses everything queued, at once.
          for (const item of take(broken === undefined ? AUDIT_BATCH_ENTRIES_MAX : pending.length)) item.reject(error);
          // The files could not be checked: the next burst (or the next start) checks them again.
          settleWanted = false;
          reserved = false;
        }
        // The lock was let go because the burst reached its bound: before taking it again, leave
        // another process (a CLI command polling for it) time to get in.
        if (commitDue()) await new Promise((resolve) => setTimeout(resolve, 2 * AUDIT_LOCK_RETRY_MS));
      }
    } finally {
      running = false;
      armTimers();
      for (const wake of idleWaiters.splice(0)) wake();
    }
  };

  const enqueue = (entry: AuditEntry, now: Date, deferred: boolean) =>
    new Promise<AuditAppendResult>((resolve, reject) => {
      const serialized = serializeFields(auditFields(entry, now));
      if (broken !== undefined) throw broken;
      if (pending.length >= AUDIT_PENDING_ENTRIES_MAX) throw new Error(`more than ${AUDIT_PENDING_ENTRIES_MAX} audit entries are waiting for the disk`);
      pending.push({ entry: serialized, resolve, reject, deferred });
      if (deferred) {
        armTimers(); // its bound runs from now, during a burst too (§45)
        return;
      }
      urgent += 1;
      wakeLinger?.();
      if (!running) void run();
    });

  return {
    append: (entry, now = new Date()) => enqueue(entry, now, false),
    appendDeferred: (entry, now = new Date()) => enqueue(entry, now, true),
    holdReservation(ms) {
      if (!Number.isSafeInteger(ms) || ms < 0) throw new TypeError('holdReservation takes a whole number of milliseconds');
      holdMs = ms;
    },
    idle() {
      if (!running && pending.length === 0 && !reserved) return Promise.resolve();
      flushWanted = pending.length > 0;
      settleWanted = true;
      wakeLinger?.();
      const waited = new Promise<void>((resolve) => idleWaiters.push(resolve));
      if (!running) void run();
      return waited;
    },
  };
}

const sharedWriters = new Map<string, AuditWriter>();

/**
 * sharedAuditWriter returns this process's one writer for home's audit.log, creating it on first
 * use. Every daemon in the process that signs for the same data directory shares it, so their
 * lines share commits instead of two writers taking turns at audit.lock.
 */
export function sharedAuditWriter(home: string): AuditWriter {
  const key = path.resolve(home);
  let writer = sharedWriters.get(key);
  if (writer === undefined) {
    writer = createAuditWriter(key);
    sharedWriters.set(key, writer);
  }
  return writer;
}

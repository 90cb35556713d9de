/**
 * One data directory, one daemon (docs/decisions.md §20). Two daemons on one LATCH_HOME (an
 * embedding product and the user's own `latch daemon` both default to ~/.latch) would each keep
 * budgets, approvals and idempotency memory of their own in memory, and together sign more than
 * the policy allows. So a daemon holds `daemon.lock` for its whole life: a file naming its pid
 * and start time, created whole by hard-linking a temporary (atomic-file.ts createExclusive), so
 * of two daemons starting at once exactly one gets it, and a reader never sees it half written.
 *
 * A lock whose pid is not running is stale (the daemon crashed, or was killed with -9) and is
 * taken over; the move aside is checked, so a live daemon's lock is never removed. The lock is a
 * promise between processes: daemons made in one process (an embedder's, the test suite's
 * stand-in daemons on one home) share it, and it is removed when the last of them closes.
 */
import { randomBytes } from 'node:crypto';
import { linkSync, renameSync, unlinkSync } from 'node:fs';
import path from 'node:path';
import { createExclusive } from './atomic-file.js';
import { DataDirError, shellQuote } from './data-dir-error.js';
import { DATA_FILES, dataFilePath } from './home.js';
import { readPrivateFile } from './read-private-file.js';

/** What a daemon's lock says about it; shown to the daemon that is refused. */
export interface LockOwner {
  pid: number;
  startedAt: string;
}

/** A held lock: release() lets it go (once the last daemon of this process that holds it closes). */
export interface DaemonLock {
  release(): void;
}

const LOCK_FILE_BYTES_MAX = 256;
/** A lock taken over as stale may be retaken by a third daemon meanwhile; a few tries settle it. */
const TAKE_ATTEMPTS_MAX = 3;

/** The locks this process holds: the lock file's content and how many daemons share it. */
const held = new Map<string, { content: string; holders: number }>();

/** daemonLockPath returns the path of daemon.lock. */
export function daemonLockPath(home: string): string {
  return dataFilePath(home, DATA_FILES.daemonLock);
}

/**
 * lockDataDir takes daemon.lock for this process, or throws a DataDirError (`locked`, exit 3)
 * naming the running daemon's pid and start time when another live process holds it.
 */
export function lockDataDir(home: string, now: Date = new Date()): DaemonLock {
  const key = path.resolve(home);
  const mine = held.get(key);
  if (mine !== undefined) {
    mine.holders += 1;
    return releaser(key);
  }
  const file = daemonLockPath(key);
  const content = `${JSON.stringify({ pid: process.pid, started_at: now.toISOString() })}\n`;
  for (let attempt = 0; attempt < TAKE_ATTEMPTS_MAX; attempt += 1) {
    try {
      createExclusive(file, content);
      held.set(key, { content, holders: 1 });
      return releaser(key);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const seen = readPrivateFile(file, LOCK_FILE_BYTES_MAX);
    if (seen === undefined) continue;
    const owner = parseLock(seen);
    if (owner !== undefined && running(owner.pid)) throw lockedBy(file, owner);
    removeStale(file, seen);
  }
  throw new DataDirError('locked', file, 'daemon.lock kept changing while this daemon tried to take it', `start the daemon again; if no latch daemon is running, remove the lock: rm ${shellQuote(file)}`);
}

/**
 * assertNoOtherDaemon throws lockDataDir's `locked` error (exit 3, naming the running daemon's pid
 * and start time) when another live process holds daemon.lock, and takes nothing: a command that
 * creates things before its daemon takes the lock (`latch start`) asks first.
 */
export function assertNoOtherDaemon(home: string): void {
  const key = path.resolve(home);
  if (held.has(key)) return;
  const file = daemonLockPath(key);
  const seen = readPrivateFile(file, LOCK_FILE_BYTES_MAX);
  const owner = seen === undefined ? undefined : parseLock(seen);
  if (owner !== undefined && running(owner.pid)) throw lockedBy(file, owner);
}

/** readLockOwner returns the daemon named in daemon.lock, or undefined when there is none (for messages and tests). */
export function readLockOwner(home: string): LockOwner | undefined {
  const text = readPrivateFile(daemonLockPath(home), LOCK_FILE_BYTES_MAX);
  return text === undefined ? undefined : parseLock(text);
}

function releaser(key: string): DaemonLock {
  let released = false;
  return {
    release() {
      if (released) return;
      released = true;
      const mine = held.get(key);
      if (mine === undefined) return;
      mine.holders -= 1;
      if (mine.holders > 0) return;
      held.delete(key);
      const file = daemonLockPath(key);
      // Only our own lock is removed; one a later daemon took over as stale is left alone.
      try {
        if (readPrivateFile(file, LOCK_FILE_BYTES_MAX) === mine.content) unlinkSync(file);
      } catch {
        // Gone already, or the directory went bad; the next daemon finds our pid gone either way.
      }
    },
  };
}

function parseLock(text: string): LockOwner | undefined {
  try {
    const value = JSON.parse(text) as { pid?: unknown; started_at?: unknown };
    if (!Number.isSafeInteger(value.pid) || (value.pid as number) <= 0 || typeof value.started_at !== 'string') return undefined;
    return { pid: value.pid as number, startedAt: value.started_at };
  } catch {
    return undefined;
  }
}

/**
 * running reports whether pid names a live process other than this one. This process's own pid
 * in a lock it does not hold is a previous life of it (a container restarts its daemon under the
 * same pid), so stale.
 */
function running(pid: number): boolean {
  if (pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else; it is not ours to call stale.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** removeStale moves a stale lock aside and deletes it, putting it back if it changed meanwhile. */
function removeStale(file: string, seen: string): void {
  const aside = path.join(path.dirname(file), `.${path.basename(file)}.${randomBytes(8).toString('hex')}.stale`);
  try {
    renameSync(file, aside);
  } catch {
    return; // Someone else moved it first.
  }
  if (readPrivateFile(aside, LOCK_FILE_BYTES_MAX) !== seen) {
    // Between reading and moving, a live daemon took the lock: put its lock back.
    try {
      linkSync(aside, file);
    } catch {
      // A third daemon locked meanwhile; it holds the directory now.
    }
  }
  try {
    unlinkSync(aside);
  } catch {
    // Already gone.
  }
}

function lockedBy(file: string, owner: LockOwner): DataDirError {
  return new DataDirError(
    'locked',
    file,
    `Another latch daemon (pid ${owner.pid}, started ${owner.startedAt}) is already serving this data directory; two daemons would each keep their own budgets and approvals`,
    `use that daemon, or stop it first (kill ${owner.pid}); to run a second one, give it another LATCH_HOME`,
  );
}

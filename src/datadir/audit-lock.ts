import { syncFiles } from '../store/file-system.js';
import { constants } from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { writeAll } from './atomic-file.js';
import { DataDirError, shellQuote } from './data-dir-error.js';
import { PRIVATE_FILE_MODE } from './data-files.js';

/**
 * audit.lock makes appends to audit.log one at a time across processes: each process appends
 * through its one AuditWriter (audit-writer.ts), which holds the lock for a burst of commits. The
 * daemon and a CLI command (`latch setup --reconnect` records its proof-of-possession signature)
 * may append at the same moment; two appenders that read the same last line would both chain to
 * it, and the log would no longer match audit.head, which stops all signing until someone looks.
 *
 * The lock is a file holding the owner's pid and a random tag, created whole by hard-linking a
 * temporary file to its name (link fails when the name exists, and a reader never sees it half
 * written). A lock whose owner is no longer running (a kill -9 in the middle of an append) is
 * moved aside and removed; the move is checked, so a live owner's lock is put back rather than
 * broken. Nothing is fsynced: after a crash the lock is stale anyway, which is what it should be.
 */

/** How long an appender waits for another process's append before giving up. */
export const AUDIT_LOCK_WAIT_MS_MAX = 10_000;
/** How often a waiting appender tries the lock again. */
export const AUDIT_LOCK_RETRY_MS = 2;
const LOCK_BYTES_MAX = 128;
const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const CREATE_NEW = constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY | O_NOFOLLOW;

/** auditLockPath returns the path of the lock file. */
export function auditLockPath(home: string): string {
  return path.join(home, 'audit.lock');
}

/** withAuditLock runs task while this process holds audit.lock, waiting (without blocking the event loop) for it. */
export async function withAuditLock<T>(home: string, task: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + AUDIT_LOCK_WAIT_MS_MAX;
  let tag = tryLock(home);
  while (tag === undefined) {
    if (Date.now() > deadline) throw lockTimeout(home);
    await new Promise((resolve) => setTimeout(resolve, AUDIT_LOCK_RETRY_MS));
    tag = tryLock(home);
  }
  try {
    return await task();
  } finally {
    unlock(home, tag);
  }
}

/** tryLock takes the lock and returns its content, or returns undefined while another live process holds it. */
function tryLock(home: string): string | undefined {
  const target = auditLockPath(home);
  const content = `${process.pid} ${randomBytes(8).toString('hex')}\n`;
  const temporary = path.join(home, `.audit.lock.${randomBytes(8).toString('hex')}.tmp`);
  const fd = syncFiles().openSync(temporary, CREATE_NEW, PRIVATE_FILE_MODE);
  try {
    writeAll(fd, content);
  } finally {
    syncFiles().closeSync(fd);
  }
  try {
    syncFiles().linkSync(temporary, target);
    return content;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EEXIST') return lockWithoutLinks(target, content, code);
    removeIfStale(home, target);
    return undefined;
  } finally {
    unlinkQuietly(temporary);
  }
}

/** Where hard links are unsupported, the lock is created with O_EXCL and written at once. */
function lockWithoutLinks(target: string, content: string, code: string | undefined): string | undefined {
  if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'ENOSYS') throw new Error(`audit.lock could not be created (${code ?? 'unknown'})`);
  let fd: number;
  try {
    fd = syncFiles().openSync(target, CREATE_NEW, PRIVATE_FILE_MODE);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return undefined;
    throw error;
  }
  try {
    writeAll(fd, content);
  } finally {
    syncFiles().closeSync(fd);
  }
  return content;
}

/** removeIfStale removes the lock when the process named in it is gone, and only then. */
function removeIfStale(home: string, target: string): void {
  const seen = readLock(target);
  if (seen === undefined || ownerAlive(seen)) return;
  const aside = path.join(home, `.audit.lock.${randomBytes(8).toString('hex')}.stale`);
  try {
    syncFiles().renameSync(target, aside);
  } catch {
    return; // Someone else moved it first.
  }
  if (readLock(aside) !== seen) {
    // Between reading and moving, the stale lock was replaced by a live one: put that one back.
    try {
      syncFiles().linkSync(aside, target);
    } catch {
      // A third process locked in the meantime; the live owner's append still ends normally.
    }
  }
  unlinkQuietly(aside);
}

function unlock(home: string, content: string): void {
  const target = auditLockPath(home);
  // Only our own lock is removed; one taken over as stale (we were presumed dead) is left alone.
  if (readLock(target) === content) unlinkQuietly(target);
}

function readLock(file: string): string | undefined {
  let fd: number;
  try {
    // Without O_NONBLOCK a FIFO in place of the lock would wait for a writer, freezing the caller.
    fd = syncFiles().openSync(file, constants.O_RDONLY | O_NOFOLLOW | (constants.O_NONBLOCK ?? 0));
  } catch {
    return undefined;
  }
  try {
    const buffer = Buffer.alloc(LOCK_BYTES_MAX + 1);
    const length = syncFiles().readSync(fd, buffer, 0, buffer.length, 0);
    return length <= LOCK_BYTES_MAX ? buffer.subarray(0, length).toString('utf8') : undefined;
  } catch {
    return undefined;
  } finally {
    syncFiles().closeSync(fd);
  }
}

/** ownerAlive reports whether the pid in a lock names a running process (unreadable: assume alive). */
function ownerAlive(content: string): boolean {
  const pid = Number(content.split(' ')[0]);
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function lockTimeout(home: string): DataDirError {
  const file = auditLockPath(home);
  return new DataDirError(
    'locked',
    file,
    `Another process has held audit.lock for more than ${AUDIT_LOCK_WAIT_MS_MAX / 1000} s`,
    `if no latch process is running, remove the lock: rm ${shellQuote(file)}`,
  );
}

function unlinkQuietly(file: string): void {
  try {
    syncFiles().unlinkSync(file);
  } catch {
    // Already gone.
  }
}

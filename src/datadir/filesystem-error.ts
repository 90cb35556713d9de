/**
 * Operating-system failures on the data directory, told as DataDirErrors: a locked-down
 * deployment (a read-only root, `nobody` with HOME=/nonexistent, a full disk) must hear which
 * path failed and what to set, not `EACCES: permission denied, mkdir '/nonexistent'`
 * (docs/decisions.md §24.6).
 */
import { lstatSync } from 'node:fs';
import { DataDirError, shellQuote } from './data-dir-error.js';

/** The errno codes that mean "this place cannot be written or reached", with what fixes each. */
const FIXES: Readonly<Record<string, (file: string) => string>> = {
  EACCES: (file) => `set LATCH_HOME to a directory this user owns and can write (e.g. LATCH_HOME=/var/lib/latch; the default is $HOME/.latch), or give this user write access to ${shellQuote(file)}`,
  EPERM: (file) => `set LATCH_HOME to a directory this user owns and can write, or fix the ownership of ${shellQuote(file)}`,
  EROFS: () => 'the file system is read-only: set LATCH_HOME to a directory on a writable volume (a mounted state volume or tmpfs)',
  ENOSPC: () => 'free space on the disk that holds the data directory, or set LATCH_HOME to another disk',
  EDQUOT: () => 'free space within this user\'s disk quota, or set LATCH_HOME to another disk',
  ENOTDIR: (file) => `a path component of ${shellQuote(file)} is a file, not a directory: set LATCH_HOME to a directory`,
  ENAMETOOLONG: () => 'set LATCH_HOME to a shorter path',
  ELOOP: (file) => `${shellQuote(file)} has too many symbolic links: set LATCH_HOME to a real directory`,
};

const WHAT: Readonly<Record<string, string>> = {
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'read-only file system',
  ENOSPC: 'no space left on the device',
  EDQUOT: 'disk quota exceeded',
  ENOTDIR: 'not a directory',
  ENAMETOOLONG: 'path too long',
  ELOOP: 'too many symbolic links',
};

/**
 * asDataDirError returns the DataDirError for an operating-system error on a file (one of the codes
 * above, from node:fs), or undefined for anything else. home names the data directory when the
 * error carries no path.
 */
export function asDataDirError(error: unknown, home?: string): DataDirError | undefined {
  if (error instanceof DataDirError || !(error instanceof Error)) return undefined;
  const { code, syscall, path: failedPath } = error as NodeJS.ErrnoException;
  if (typeof code !== 'string' || !Object.hasOwn(FIXES, code)) return undefined;
  const file = typeof failedPath === 'string' ? failedPath : home;
  if (file === undefined) return undefined;
  const fix = FIXES[code] as (file: string) => string;
  const action = typeof syscall === 'string' && /^[a-z]{2,16}$/.test(syscall) ? ` (${syscall})` : '';
  return new DataDirError('write_failed', file, `The data directory cannot be used: ${WHAT[code] ?? code}${action}, ${code}`, fix(file));
}

/** entryExists reports whether anything (a file, a directory, a link, followed or not) is at file; other errors throw. */
export function entryExists(file: string): boolean {
  try {
    lstatSync(file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}

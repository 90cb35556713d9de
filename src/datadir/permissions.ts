import { lstatSync, statSync, type Stats } from 'node:fs';
import os from 'node:os';
import { DataDirError, shellQuote } from './data-dir-error.js';
import { knownDataFiles } from './data-files.js';

/** Whether a path is expected to be the data directory or a file inside it. */
export type PrivateKind = 'dir' | 'file';

// Any permission bit for group or others makes a file or directory public (docs/decisions.md §1).
const GROUP_OR_OTHER_BITS = 0o077;

/**
 * permissionChecksApply reports whether POSIX owner and mode checks mean anything on this
 * platform. On Windows, Node reports synthetic modes and no uid, so the checks are skipped there;
 * README.md documents that the data directory's protection then rests on the user profile's ACLs.
 */
export function permissionChecksApply(): boolean {
  return process.platform !== 'win32' && typeof process.getuid === 'function';
}

/**
 * assertPrivate refuses a data-directory path that is group- or world-accessible, owned by another
 * user, of the wrong type, or (for files) a symbolic link. A missing path is accepted, because
 * Latch creates it later at the right mode. The data directory itself may be reached through a
 * symbolic link (its target is checked); files may not, since a link could point anywhere.
 */
export function assertPrivate(target: string, kind: PrivateKind): void {
  let stats: Stats;
  try {
    stats = kind === 'dir' ? statSync(target) : lstatSync(target);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  assertPrivateStats(stats, target, kind);
}

/**
 * assertPrivateStats applies the checks of assertPrivate to stats already taken, for callers that
 * hold an open descriptor and want no gap between the check and the read.
 */
export function assertPrivateStats(stats: Stats, target: string, kind: PrivateKind): void {
  const quoted = shellQuote(target);
  if (stats.isSymbolicLink()) {
    throw new DataDirError('symlink', target, 'Refusing a data file that is a symbolic link', `replace the link with a regular file: rm ${quoted}`);
  }
  const typeOk = kind === 'dir' ? stats.isDirectory() : stats.isFile();
  if (!typeOk) {
    const wanted = kind === 'dir' ? 'a directory' : 'a regular file';
    throw new DataDirError('wrong_type', target, `Expected ${wanted}`, `move it aside and let Latch recreate it: mv ${quoted} ${shellQuote(`${target}.bak`)}`);
  }
  if (!permissionChecksApply()) return;
  const uid = (process.getuid as () => number)();
  if (stats.uid !== uid) {
    throw new DataDirError(
      'wrong_owner',
      target,
      `Refusing ${describe(kind)} owned by uid ${stats.uid}, not by the user running Latch (uid ${uid})`,
      `sudo chown ${shellQuote(currentUserName(uid))} ${quoted}`,
    );
  }
  const mode = stats.mode & 0o777;
  if ((mode & GROUP_OR_OTHER_BITS) !== 0) {
    const wanted = kind === 'dir' ? '700' : '600';
    throw new DataDirError(
      'insecure_permissions',
      target,
      `Permissions ${mode.toString(8).padStart(4, '0')} on ${describe(kind)} are too open: group or others can access it`,
      `chmod ${wanted} ${quoted}`,
    );
  }
}

/**
 * assertDataDirSecure checks the data directory and every known file in it, and throws a
 * DataDirError naming the first offender and its fix. The daemon calls it before it reads any
 * secret, and refuses to start when it throws.
 */
export function assertDataDirSecure(home: string, extraFiles: readonly string[] = []): void {
  assertHomeSecure(home);
  for (const file of [...knownDataFiles(home), ...extraFiles]) assertPrivate(file, 'file');
}

/**
 * assertHomeSecure checks the data directory itself: private and owned by the user, and, when it
 * is reached through a symbolic link, a link owned by the user or by root, since whoever owns the
 * link decides where the data directory is. The daemon runs it at start and again whenever the
 * directory changes (see services.ts), so a directory made unsafe at runtime is refused too.
 */
export function assertHomeSecure(home: string): void {
  let link: Stats;
  try {
    link = lstatSync(home);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  if (link.isSymbolicLink() && permissionChecksApply()) {
    const uid = (process.getuid as () => number)();
    if (link.uid !== uid && link.uid !== 0) {
      throw new DataDirError(
        'wrong_owner',
        home,
        `Refusing a data directory reached through a symbolic link owned by uid ${link.uid}, not by the user running Latch (uid ${uid}) or root`,
        `replace the link with one you own: ln -sfn "$(readlink ${shellQuote(home)})" ${shellQuote(home)}`,
      );
    }
  }
  assertPrivate(home, 'dir');
}

function describe(kind: PrivateKind): string {
  return kind === 'dir' ? 'the data directory' : 'a data file';
}

function currentUserName(uid: number): string {
  // Containers often have no passwd entry for the uid; the numeric id works with chown too.
  try {
    return os.userInfo().username;
  } catch {
    return String(uid);
  }
}

import { lstatSync, statSync, type BigIntStats } from 'node:fs';

/**
 * reloadOnChange returns a getter for a value loaded from a file, which loads it again whenever
 * the file's identity (inode, size, modification and change times) differs from the last load.
 * One lstat per call (and a stat through a link) is cheap, needs no watcher, and notices what a
 * watcher can miss: a rename into place (`latch token rotate`), a deletion, or a chmod (the change
 * time moves), so that a file made unsafe while the daemon runs is re-checked and refused rather
 * than served from memory.
 * A load that throws is not cached: the next call tries again.
 */
export function reloadOnChange<T>(file: string, load: () => T): () => T {
  let loadedIdentity: FileIdentity | undefined;
  let value: T;
  return () => {
    const identity = fileIdentity(file);
    if (loadedIdentity === undefined || !sameIdentity(identity, loadedIdentity)) {
      value = load();
      loadedIdentity = identity;
    }
    return value;
  };
}

/** A path's stats (undefined when absent) and, when it is a symbolic link, its target's. */
interface FileIdentity {
  path: BigIntStats | undefined;
  target?: BigIntStats | undefined;
}

/**
 * fileIdentity describes the path itself and, when it is a symbolic link (a data directory may
 * be reached through one), its target too, so that a chmod or chown of either counts as a change.
 * An absent file is an identity too (no exception: it is asked on every request, and a thrown
 * ENOENT costs several times the lstat).
 */
function fileIdentity(file: string): FileIdentity {
  const stats = lstatSync(file, { bigint: true, throwIfNoEntry: false });
  return stats?.isSymbolicLink() === true ? { path: stats, target: statSync(file, { bigint: true, throwIfNoEntry: false }) } : { path: stats };
}

function sameIdentity(now: FileIdentity, before: FileIdentity): boolean {
  return sameStats(now.path, before.path) && sameStats(now.target, before.target);
}

/** sameStats compares what identifies a file's content and safety: inode, size, times, mode, owner. */
function sameStats(now: BigIntStats | undefined, before: BigIntStats | undefined): boolean {
  if (now === undefined || before === undefined) return now === before;
  return (
    now.dev === before.dev &&
    now.ino === before.ino &&
    now.size === before.size &&
    now.mtimeNs === before.mtimeNs &&
    now.ctimeNs === before.ctimeNs &&
    now.mode === before.mode &&
    now.uid === before.uid
  );
}

/**
 * oncePerTurn runs check at most once per synchronous run of the event loop: the calls made
 * before the current code yields share one run of it. Nothing else can run in between, in this
 * process or in how the daemon sees the files, so it only drops repeats (resolving the device key
 * asks for the data directory's check once per file it reads). The first call after the turn
 * ends runs it again.
 */
export function oncePerTurn(check: () => void): () => void {
  let checkedThisTurn = false;
  return () => {
    if (checkedThisTurn) return;
    check();
    checkedThisTurn = true;
    queueMicrotask(() => {
      checkedThisTurn = false;
    });
  };
}

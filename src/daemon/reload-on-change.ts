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
  let loadedIdentity: string | undefined;
  let value: T;
  return () => {
    const identity = fileIdentity(file);
    if (identity !== loadedIdentity) {
      value = load();
      loadedIdentity = identity;
    }
    return value;
  };
}

/**
 * fileIdentity describes the path itself and, when it is a symbolic link (a data directory may
 * be reached through one), its target too, so that a chmod or chown of either counts as a change.
 */
function fileIdentity(file: string): string {
  const link = statIdentity(() => lstatSync(file, { bigint: true }));
  return link.startsWith('link:') ? `${link}>${statIdentity(() => statSync(file, { bigint: true }))}` : link;
}

function statIdentity(stat: () => BigIntStats): string {
  try {
    const stats = stat();
    const kind = stats.isSymbolicLink() ? 'link' : 'node';
    return `${kind}:${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeNs}:${stats.ctimeNs}:${stats.mode}:${stats.uid}`;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'absent';
    throw error;
  }
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

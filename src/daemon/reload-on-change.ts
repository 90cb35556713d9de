import { lstatSync } from 'node:fs';

/**
 * reloadOnChange returns a getter for a value loaded from a file, which loads it again whenever
 * the file's identity (inode, size, modification and change times) differs from the last load.
 * One lstat per call is cheap, needs no watcher, and notices what a watcher can miss: a rename
 * into place (`latch token rotate`), a deletion, or a chmod (the change time moves), so that a
 * file made unsafe while the daemon runs is re-checked and refused rather than served from memory.
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

function fileIdentity(file: string): string {
  try {
    const stats = lstatSync(file, { bigint: true });
    return `${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeNs}:${stats.ctimeNs}:${stats.mode}:${stats.uid}`;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'absent';
    throw error;
  }
}

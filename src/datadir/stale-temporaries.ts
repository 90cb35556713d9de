import { lstatSync, readdirSync, unlinkSync } from 'node:fs';
import path from 'node:path';

/**
 * The temporary files Latch writes beside a file before renaming it into place
 * (`.<name>.<16 hex>.tmp`, see atomic-file.ts), and lock files moved aside
 * (`.<lock>.<16 hex>.stale`). A process killed between writing one and renaming it leaves it
 * behind, and it may hold a token, a device key or a passphrase hash that was never put to use.
 */
const TEMPORARY_NAME = /^\.(.+)\.[0-9a-f]{16}\.(?:tmp|stale)$/;

/** A writer holds its temporary file for milliseconds; anything older than this was abandoned. */
export const STALE_TEMPORARY_AGE_MS = 60_000;

/**
 * removeStaleTemporaries deletes abandoned temporary files from one directory: only regular files
 * owned by this user, named like a temporary of a file `isLatchFile` accepts (so that a stranger's
 * `.notes.<hex>.tmp` is left alone), untouched for STALE_TEMPORARY_AGE_MS. It returns how many it
 * removed and never throws: cleaning up is not worth failing a command for.
 */
export function removeStaleTemporaries(directory: string, isLatchFile: (name: string) => boolean, nowMs: number = Date.now()): number {
  let names: string[];
  try {
    names = readdirSync(directory);
  } catch {
    return 0;
  }
  let removed = 0;
  const uid = typeof process.getuid === 'function' ? process.getuid() : undefined;
  for (const name of names) {
    const target = TEMPORARY_NAME.exec(name)?.[1];
    if (target === undefined || !isLatchFile(target)) continue;
    const file = path.join(directory, name);
    try {
      const stats = lstatSync(file);
      if (!stats.isFile() || (uid !== undefined && stats.uid !== uid) || nowMs - stats.mtimeMs < STALE_TEMPORARY_AGE_MS) continue;
      unlinkSync(file);
      removed += 1;
    } catch {
      // Gone already, or not ours to remove.
    }
  }
  return removed;
}

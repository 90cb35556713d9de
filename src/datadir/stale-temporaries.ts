import { lstatSync, readdirSync, unlinkSync } from 'node:fs';
import path from 'node:path';

/**
 * The temporary files Latch writes beside a data file before renaming it into place
 * (`.<name>.<16 hex>.tmp`), and lock files moved aside (`.audit.lock.<16 hex>.stale`). A process
 * killed between writing one and renaming it leaves it behind, and it may hold a token or a
 * device key that was never put to use.
 */
const TEMPORARY_NAME = /^\.(?:daemon_token|device\.key|config\.json|audit\.head|audit\.lock)\.[0-9a-f]{16}\.(?:tmp|stale)$/;

/** A writer holds its temporary file for milliseconds; anything older than this was abandoned. */
export const STALE_TEMPORARY_AGE_MS = 60_000;

/**
 * removeStaleTemporaries deletes abandoned temporary files from the data directory: only regular
 * files owned by this user, named like Latch's own temporaries, untouched for
 * STALE_TEMPORARY_AGE_MS. It returns how many it removed and never throws: cleaning up is not
 * worth failing a command for.
 */
export function removeStaleTemporaries(home: string, nowMs: number = Date.now()): number {
  let names: string[];
  try {
    names = readdirSync(home);
  } catch {
    return 0;
  }
  let removed = 0;
  const uid = typeof process.getuid === 'function' ? process.getuid() : undefined;
  for (const name of names) {
    if (!TEMPORARY_NAME.test(name)) continue;
    const file = path.join(home, name);
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

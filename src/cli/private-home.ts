import { ensureHome, resolveHome } from '../datadir/home.js';
import { assertDataDirSecure } from '../datadir/permissions.js';

/**
 * privateHome is the data directory a command is about to write a secret or a setting into:
 * LATCH_HOME (or ~/.latch) created at 0700 when missing, and refused with the fix named when it or
 * any file in it is not private — a fresh secret is never written where others can read it.
 */
export function privateHome(env: NodeJS.ProcessEnv): string {
  const home = resolveHome(env);
  ensureHome(home);
  assertDataDirSecure(home);
  return home;
}

/**
 * Where the daemon's effective spending policy comes from: `$LATCH_HOME/policy.json`, checked
 * like every data file (a regular file, this user's, 0600, no symbolic link) and re-read when it
 * changes, without a restart. Absent, the built-in allow-all default applies, exactly as before
 * policies existed. Invalid, every governed request fails closed with 503 policy_invalid until
 * the file is fixed; the parse result, error included, is kept until the file changes again.
 *
 * Once a policy has been loaded, a missing file does not mean "no policy" (docs/decisions.md §17.4):
 * editors save by rename-then-write or delete-then-write, and in that gap the daemon keeps the last
 * good policy. Only `latch policy remove` (audited) ends it: it writes policy.removed, and the
 * default applies when that marker is newer than the policy the daemon last loaded.
 */
import { closeSync, constants, readSync, statSync } from 'node:fs';
import { DATA_FILES, dataFilePath } from '../datadir/data-files.js';
import { openPrivateFile } from '../datadir/read-private-file.js';
import { DEFAULT_POLICY, parsePolicyBytes, POLICY_FILE_BYTES_MAX } from '../policy/policy-file.js';
import { PolicyInvalidError } from '../policy/policy-invalid-error.js';
import type { Policy } from '../policy/policy-types.js';
import type { PolicyInForce } from './policy-in-force.js';
import { reloadOnChange } from './reload-on-change.js';

/** policyPath is `$LATCH_HOME/policy.json`. */
export function policyPath(home: string): string {
  return dataFilePath(home, DATA_FILES.policy);
}

type Loaded = { policy: Policy } | { invalid: PolicyInvalidError };

/**
 * loadPolicyFile reads and validates policy.json once: the default when it does not exist, a
 * PolicyInvalidError (returned, not thrown) when it is not a valid policy, and a DataDirError
 * (thrown) when the file is unsafe.
 */
export function loadPolicyFile(file: string): Loaded {
  const bytes = readPrivateBytes(file, POLICY_FILE_BYTES_MAX + 1);
  if (bytes === undefined) return { policy: DEFAULT_POLICY };
  try {
    return { policy: parsePolicyBytes(bytes) };
  } catch (error) {
    if (error instanceof PolicyInvalidError) return { invalid: error };
    throw error;
  }
}

/** policyRemovedPath is `$LATCH_HOME/policy.removed`, the marker `latch policy remove` writes. */
export function policyRemovedPath(home: string): string {
  return dataFilePath(home, DATA_FILES.policyRemoved);
}

/**
 * policySource returns a getter of the effective policy that throws PolicyInvalidError while the
 * file is invalid, and while it is missing after a restart although a policy was in force (inForce,
 * state.journal) and `latch policy remove` has not run since.
 */
export function policySource(home: string, inForce: PolicyInForce, checkHome: () => void = () => undefined): () => Policy {
  const file = policyPath(home);
  const marker = policyRemovedPath(home);
  // The last policy loaded from the file, and when (ms): kept while the file is missing.
  let lastGood: { policy: Policy; loadedAtMs: number } | undefined;
  const loaded = reloadOnChange(file, () => ({ result: loadPolicyFile(file), atMs: Date.now() }));
  return () => {
    checkHome();
    const { result, atMs } = loaded();
    if ('invalid' in result) throw result.invalid;
    if (result.policy.source === 'file') {
      if (lastGood?.policy !== result.policy) lastGood = { policy: result.policy, loadedAtMs: atMs };
      inForce.note(result.policy.sha256, atMs);
      return result.policy;
    }
    if (lastGood !== undefined) {
      if (!removedSince(marker, lastGood.loadedAtMs)) return lastGood.policy;
      lastGood = undefined;
      inForce.note(null, Date.now());
      return result.policy;
    }
    // No policy loaded by this process: one in force before a restart still binds, failing closed.
    const known = inForce.current();
    if (known === undefined || known.sha256 === null) return result.policy;
    if (removedSince(marker, known.atMs)) {
      inForce.note(null, Date.now());
      return result.policy;
    }
    throw new PolicyInvalidError(
      '$',
      `policy.json is missing, but a policy (sha256 ${known.sha256}) was in force before the daemon restarted; nothing governed is signed until the file is restored, or \`latch policy remove\` says to allow every request`,
    );
  };
}

/** removedSince reports whether `latch policy remove` wrote its marker at or after atMs. */
function removedSince(marker: string, atMs: number): boolean {
  try {
    return statSync(marker).mtimeMs >= atMs;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}

/** readPrivateBytes reads at most bytesMax bytes of a checked data file, or undefined when it is absent. */
function readPrivateBytes(file: string, bytesMax: number): Uint8Array | undefined {
  const opened = openPrivateFile(file, constants.O_RDONLY);
  if (opened === undefined) return undefined;
  try {
    // A larger file is read only this far: the parser refuses it as too large, naming `$`.
    const buffer = Buffer.alloc(Math.min(opened.stats.size, bytesMax));
    let filled = 0;
    while (filled < buffer.length) {
      const read = readSync(opened.fd, buffer, filled, buffer.length - filled, filled);
      if (read === 0) break;
      filled += read;
    }
    return buffer.subarray(0, filled);
  } finally {
    closeSync(opened.fd);
  }
}

/**
 * Where the daemon's effective spending policy comes from: `$LATCH_HOME/policy.json`, checked
 * like every data file (a regular file, this user's, 0600, no symbolic link) and re-read when it
 * changes, without a restart. Absent, the built-in allow-all default applies, exactly as before
 * policies existed. Invalid, every governed request fails closed with 503 policy_invalid until
 * the file is fixed; the parse result, error included, is kept until the file changes again.
 */
import { closeSync, constants, readSync } from 'node:fs';
import { DATA_FILES, dataFilePath } from '../datadir/home.js';
import { openPrivateFile } from '../datadir/read-private-file.js';
import { DEFAULT_POLICY, parsePolicyBytes, POLICY_FILE_BYTES_MAX } from '../policy/policy-file.js';
import { PolicyInvalidError } from '../policy/policy-invalid-error.js';
import type { Policy } from '../policy/policy-types.js';
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

/** policySource returns a getter of the effective policy that throws PolicyInvalidError while the file is invalid. */
export function policySource(home: string, checkHome: () => void = () => undefined): () => Policy {
  const file = policyPath(home);
  const loaded = reloadOnChange(file, () => loadPolicyFile(file));
  return () => {
    checkHome();
    const result = loaded();
    if ('invalid' in result) throw result.invalid;
    return result.policy;
  };
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

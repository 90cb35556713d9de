/**
 * What `latch doctor` reports about the owner's protections (docs/decisions.md §21): the pinned
 * daemon key (what clients prove before they send a passphrase), whether anything in the data
 * directory is readable by others, and whether presence is configured while agents exist. It
 * reads, and never changes, anything.
 */
import { lstatSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { listAgentNames } from '../datadir/agents.js';
import { readPinnedKey } from './pinned-key.js';

/** The owner-security part of a diagnosis. */
export interface OwnerSecurity {
  /** The pinned key id and where it came from, or null when nothing is pinned. */
  pinned_key: { key_id: string; source: string } | null;
  /** `private`, `not_readable_by_you` (the separate-user setup), or `exposed` with the entries. */
  data_directory: 'private' | 'not_readable_by_you' | 'exposed';
  /** Entries of the data directory that group or others may read, write or enter. */
  exposed: string[];
  /** The daemon's /health owner_presence, or null when unknown. */
  owner_presence: string | null;
  warnings: string[];
}

/** Entries deeper than this are not walked (the data directory is flat but for agents/ and sandbox/). */
const DEPTH_MAX = 3;

/** ownerSecurity inspects home and what /health said of presence. */
export function ownerSecurity(home: string, ownerPresence: string | null, env: NodeJS.ProcessEnv = process.env): OwnerSecurity {
  const warnings: string[] = [];
  let pinned: OwnerSecurity['pinned_key'] = null;
  try {
    const found = readPinnedKey(home, env);
    if (found !== undefined) pinned = { key_id: found.keyId, source: found.source };
  } catch (error) {
    warnings.push(`the daemon pin cannot be used (${error instanceof Error ? error.message : 'unreadable'}): clients will send no passphrase until it is pinned again`);
  }
  if (pinned === null) warnings.push('no daemon key is pinned: the CLI will not send the owner passphrase (latch service install --system pins it; the same-user setup pins config.json\'s key_id at enrollment)');
  const exposed: string[] = [];
  let readable = true;
  try {
    walk(home, 0, exposed);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EACCES') readable = false;
    else if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  if (exposed.length > 0) warnings.push(`readable or writable by others: ${exposed.join(', ')} (chmod 700 directories, 600 files)`);
  let agents = 0;
  try {
    agents = listAgentNames(home).length;
  } catch {
    agents = 0;
  }
  if (ownerPresence === 'none' && agents > 0) {
    warnings.push('agents exist but no owner passphrase is set: anything that reads daemon_token can approve, resume, change the policy and add agents (latch approvals passphrase set)');
  }
  return { pinned_key: pinned, data_directory: !readable ? 'not_readable_by_you' : exposed.length > 0 ? 'exposed' : 'private', exposed, owner_presence: ownerPresence, warnings };
}

function walk(dir: string, depth: number, exposed: string[]): void {
  const stats = lstatSync(dir);
  if ((stats.mode & 0o077) !== 0) exposed.push(dir);
  if (!stats.isDirectory() || depth > DEPTH_MAX) return;
  for (const entry of readdirSync(dir)) {
    const full = path.join(dir, entry);
    const entryStats = lstatSync(full);
    if (entryStats.isDirectory()) walk(full, depth + 1, exposed);
    else if (!entryStats.isSymbolicLink() && (entryStats.mode & 0o077) !== 0) exposed.push(full);
  }
}

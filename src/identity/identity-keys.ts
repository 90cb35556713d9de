/**
 * Whose identity key is where, and when it exists (docs/decisions.md §23.1): the owner's always
 * may; an agent's only while the agent does. A key is made on first use or by `latch agent add`,
 * replaced by `latch agent rotate NAME --identity`, and destroyed by `latch agent remove`.
 */
import { agentsDir, agentTokenPath, assertAgentName, assertAgentsDirPrivate, ensureAgentsDir, listAgentNames } from '../datadir/agents.js';
import { DataDirError } from '../datadir/data-dir-error.js';
import type { SigningKey } from '../crypto/signing-key.js';
import { readPrivateFile } from '../datadir/read-private-file.js';
import {
  createIdentityKeyFile,
  destroyIdentityKeyFile,
  identityKeyFile,
  OWNER_IDENTITY,
  readIdentityKeyFile,
  replaceIdentityKeyFile,
} from '../signer/key-admin.js';

/** The key's holder: `owner`, or an agent's name. */
export type IdentityHolder = string;

/** identityKeyPath returns the key file of the owner or of a (validly named) agent. */
export function identityKeyPath(home: string, holder: IdentityHolder): string {
  if (holder !== OWNER_IDENTITY) assertAgentName(holder);
  return identityKeyFile(agentsDir(home), holder);
}

function rotateFix(holder: IdentityHolder): string {
  return holder === OWNER_IDENTITY ? 'remove the file; Latch makes a new owner key at its next use' : `latch agent rotate ${holder} --identity`;
}

/** readIdentityKey returns the holder's key, or undefined when it has none yet. */
export function readIdentityKey(home: string, holder: IdentityHolder): SigningKey | undefined {
  assertAgentsDirPrivate(home);
  return readIdentityKeyFile(identityKeyPath(home, holder), rotateFix(holder));
}

/**
 * ensureIdentityKey returns the holder's key, making it first when there is none. An agent
 * without a token has no key: one made while the agent was being removed is destroyed again at
 * once, so a removed agent's key never outlives it (and never passes to a new agent of that name).
 */
export function ensureIdentityKey(home: string, holder: IdentityHolder): SigningKey {
  const file = identityKeyPath(home, holder);
  assertAgentsDirPrivate(home);
  const known = readIdentityKeyFile(file, rotateFix(holder));
  if (known !== undefined) return known;
  if (holder !== OWNER_IDENTITY && !agentExists(home, holder)) throw missingAgent(home, holder);
  ensureAgentsDir(home);
  createIdentityKeyFile(file);
  if (holder !== OWNER_IDENTITY && !agentExists(home, holder)) {
    destroyIdentityKeyFile(file);
    throw missingAgent(home, holder);
  }
  const made = readIdentityKeyFile(file, rotateFix(holder));
  if (made === undefined) throw missingAgent(home, holder);
  return made;
}

/** rotateIdentityKey replaces an existing agent's (or the owner's) key; the old one signs nothing more. */
export function rotateIdentityKey(home: string, holder: IdentityHolder): SigningKey {
  if (holder !== OWNER_IDENTITY && !agentExists(home, holder)) throw missingAgent(home, holder);
  ensureAgentsDir(home);
  replaceIdentityKeyFile(identityKeyPath(home, holder));
  return ensureIdentityKey(home, holder);
}

/** destroyIdentityKey deletes the holder's key; `latch agent remove` calls it. */
export function destroyIdentityKey(home: string, holder: IdentityHolder): void {
  destroyIdentityKeyFile(identityKeyPath(home, holder));
}

/** identityHolders lists who has a key in the directory: the owner, then every agent, sorted. */
export function identityHolders(home: string): IdentityHolder[] {
  return [OWNER_IDENTITY, ...listAgentNames(home)];
}

function agentExists(home: string, name: string): boolean {
  try {
    return readPrivateFile(agentTokenPath(home, name), 64) !== undefined;
  } catch (error) {
    // An unsafe token file is no agent the daemon would accept.
    if (error instanceof DataDirError) return false;
    throw error;
  }
}

function missingAgent(home: string, name: string): DataDirError {
  return new DataDirError('missing', agentTokenPath(home, name), `There is no agent named "${name}"`, `create it with latch agent add ${name} (latch agent list shows the agents)`);
}

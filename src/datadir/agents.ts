/**
 * Agent credentials (docs/decisions.md §15.1): each agent has its own token in
 * `$LATCH_HOME/agents/NAME.token`, so the owner can tell agents apart, limit them, and take one
 * away without touching the others. Beside it, `NAME.json` holds the agent's creation time; its
 * modification time is when the daemon last saw the agent's token (updated at most once a
 * minute), so `latch agent list` can answer without a running daemon and the token file itself
 * never changes except by `latch agent rotate`.
 */
import { entryExists } from './filesystem-error.js';
import { lstatSync, mkdirSync, readdirSync, unlinkSync, utimesSync } from 'node:fs';
import path from 'node:path';
import { createExclusive, fsyncDirectory, writeFileAtomic } from './atomic-file.js';
import { DataDirError } from './data-dir-error.js';
import { AGENTS_DIR, AGENT_FILE_SUFFIXES, AGENT_NAME_PATTERN, HOME_DIR_MODE } from './home.js';
import { createIdentityKeyFile, destroyIdentityKeyFile, identityKeyFile } from '../signer/key-admin.js';
import { assertPrivate, assertPrivateStats } from './permissions.js';
import { readPrivateFile, readPrivateFileWithStats } from './read-private-file.js';
import { newToken, parseTokenText } from './token.js';

export { AGENTS_DIR, AGENT_NAME_PATTERN };
/** At most this many agents: every request compares its token against each of them. */
export const AGENTS_MAX = 64;
/** `owner` names the daemon token's holder in audit lines and policies, so no agent may take it. */
const RESERVED_NAMES: ReadonlySet<string> = new Set(['owner']);

const TOKEN_SUFFIX = AGENT_FILE_SUFFIXES.token;
const META_SUFFIX = AGENT_FILE_SUFFIXES.record;
const META_FILE_BYTES_MAX = 1024;
const TOKEN_FILE_BYTES_MAX = 64;

/** What `latch agent list` shows of an agent; never the token. */
export interface AgentInfo {
  name: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  tokenFile: string;
}

/** agentsDir returns the absolute agents folder of a data directory. */
export function agentsDir(home: string): string {
  return path.join(home, AGENTS_DIR);
}

/** agentTokenPath returns the token file of an agent (the name must be valid). */
export function agentTokenPath(home: string, name: string): string {
  assertAgentName(name);
  return path.join(agentsDir(home), `${name}${TOKEN_SUFFIX}`);
}

function agentMetaPath(home: string, name: string): string {
  return path.join(agentsDir(home), `${name}${META_SUFFIX}`);
}

/** validAgentName reports whether text is a usable agent name. */
export function validAgentName(text: string): boolean {
  return AGENT_NAME_PATTERN.test(text) && !RESERVED_NAMES.has(text);
}

/** assertAgentName throws AgentNameError unless name is a usable agent name. */
export function assertAgentName(name: string): void {
  if (!validAgentName(name)) throw new AgentNameError(name);
}

/** AgentNameError is a name that cannot be an agent's; its message never echoes the text. */
export class AgentNameError extends Error {
  constructor(name: string) {
    super(
      RESERVED_NAMES.has(name)
        ? `"${name}" is reserved for the daemon token's holder; choose another agent name`
        : 'An agent name is 1 to 32 characters: lower-case letters, digits, "_" and "-", starting with a letter or digit',
    );
    this.name = 'AgentNameError';
  }
}

/**
 * ensureAgentsDir creates `agents/` at 0700 when missing and refuses one that is not private
 * (the same refusal, naming the folder and the fix, as for the data directory itself).
 */
export function ensureAgentsDir(home: string): string {
  const directory = agentsDir(home);
  try {
    mkdirSync(directory, { mode: HOME_DIR_MODE });
    fsyncDirectory(home);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  assertAgentsDirPrivate(home);
  return directory;
}

/** assertAgentsDirPrivate refuses an agents folder that is a link, loose or someone else's. */
export function assertAgentsDirPrivate(home: string): void {
  const directory = agentsDir(home);
  let stats;
  try {
    // lstat, not stat: the folder is reached by name from the data directory, and a symbolic
    // link there could point anywhere.
    stats = lstatSync(directory);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  assertPrivateStats(stats, directory, 'dir');
}

/**
 * addAgent creates the agent's token (32 random bytes, 0600, O_EXCL) and its record, and returns
 * the token file's path. An existing agent of that name is refused, never overwritten.
 */
export function addAgent(home: string, name: string, now: Date = new Date()): string {
  assertAgentName(name);
  ensureAgentsDir(home);
  if (listAgentNames(home).length >= AGENTS_MAX) {
    throw new DataDirError('invalid_value', agentsDir(home), `There are already ${AGENTS_MAX} agents, the most Latch keeps`, 'remove an agent you no longer use: latch agent remove NAME');
  }
  const tokenFile = agentTokenPath(home, name);
  // A key left by an agent of this name that was removed half-way is not passed on to this one.
  if (!entryExists(tokenFile)) destroyIdentityKeyFile(identityKeyFile(agentsDir(home), name));
  // The record first: an agent whose token exists always has a creation time.
  writeFileAtomic(agentMetaPath(home, name), JSON.stringify({ v: 1, name, created_at: now.toISOString() }));
  try {
    createExclusive(tokenFile, newToken());
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
      throw new DataDirError('exists', tokenFile, `An agent named "${name}" already exists`, `give it a new token with latch agent rotate ${name}, or choose another name`);
    }
    throw error;
  }
  // Its Web Bot Auth identity key (docs/decisions.md §23.1).
  createIdentityKeyFile(identityKeyFile(agentsDir(home), name));
  return tokenFile;
}

/** rotateAgent replaces an existing agent's token atomically; its old token stops working at once. */
export function rotateAgent(home: string, name: string): string {
  const tokenFile = agentTokenPath(home, name);
  assertAgentsDirPrivate(home);
  // Reading checks that the agent exists and its file is safe before it is replaced.
  readAgentToken(home, name);
  writeFileAtomic(tokenFile, newToken());
  return tokenFile;
}

/**
 * removeAgent deletes the agent's token (the next request with it is refused) and its record.
 * It throws DataDirError 'missing' when there is no such agent.
 */
export function removeAgent(home: string, name: string): void {
  const tokenFile = agentTokenPath(home, name);
  assertAgentsDirPrivate(home);
  try {
    unlinkSync(tokenFile);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw missingAgent(home, name);
    throw error;
  }
  // Removing an agent destroys its identity key: it signs nothing more and leaves the key directory.
  destroyIdentityKeyFile(identityKeyFile(agentsDir(home), name));
  try {
    unlinkSync(agentMetaPath(home, name));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  fsyncDirectory(agentsDir(home));
}

/**
 * readAgentToken returns an agent's token, with the checks applied to daemon_token: no symbolic
 * link, a regular file, owned by this user, mode 0600, the right shape.
 */
export function readAgentToken(home: string, name: string): string {
  const tokenFile = agentTokenPath(home, name);
  const text = readPrivateFile(tokenFile, TOKEN_FILE_BYTES_MAX);
  if (text === undefined) throw missingAgent(home, name);
  return parseTokenText(text, tokenFile, `latch agent rotate ${name}`);
}

/** listAgentNames returns the names of the agents that have a token file, sorted. */
export function listAgentNames(home: string): string[] {
  let entries: string[];
  try {
    entries = readdirSync(agentsDir(home));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  return entries
    .filter((entry) => entry.endsWith(TOKEN_SUFFIX))
    .map((entry) => entry.slice(0, -TOKEN_SUFFIX.length))
    .filter(validAgentName)
    .sort();
}

/** listAgents describes every agent: name, creation and last use (never the token). */
export function listAgents(home: string): AgentInfo[] {
  assertAgentsDirPrivate(home);
  return listAgentNames(home).map((name) => {
    const meta = readAgentMeta(home, name);
    return { name, tokenFile: agentTokenPath(home, name), ...meta };
  });
}

function readAgentMeta(home: string, name: string): { createdAt: Date; lastUsedAt: Date | null } {
  // One open: the modification time and the contents come from the same file.
  const read = readPrivateFileWithStats(agentMetaPath(home, name), META_FILE_BYTES_MAX);
  if (read === undefined) return { createdAt: new Date(0), lastUsedAt: null };
  const { text } = read;
  const modifiedMs = read.stats.mtimeMs;
  let createdAt = new Date(0);
  try {
    const parsed = JSON.parse(text) as { created_at?: unknown };
    if (typeof parsed.created_at === 'string' && !Number.isNaN(Date.parse(parsed.created_at))) createdAt = new Date(parsed.created_at);
  } catch {
    // A damaged record loses only the dates it held; the token stays usable.
  }
  // The record is written once at creation; a later modification time is a use.
  const lastUsedAt = modifiedMs > createdAt.getTime() + 1000 ? new Date(modifiedMs) : null;
  return { createdAt, lastUsedAt };
}

/**
 * agentFiles returns the token, record and identity key file of every agent, and the owner's
 * identity key, for the start's checks of the data directory; a loose or foreign agents folder is
 * refused here first.
 */
export function agentFiles(home: string): string[] {
  assertAgentsDirPrivate(home);
  const identity = (holder: string) => identityKeyFile(agentsDir(home), holder);
  return [...listAgentNames(home).flatMap((name) => [agentTokenPath(home, name), agentMetaPath(home, name), identity(name)]), identity('owner')];
}

/**
 * assertAgentTokensPrivate checks every agent's token file at the daemon's start. Agent tokens
 * persist across restarts until `latch agent rotate` or `remove` (docs/decisions.md §36): in the
 * separate-user setup a token is handed to another account, which must not lose it at a reboot.
 * A loose or foreign agents folder, or a token file that is itself unsafe (group- or
 * world-readable, another user's, a link), stops the start as an unsafe daemon_token does,
 * naming the file and the fix (docs/decisions.md §20).
 */
export function assertAgentTokensPrivate(home: string): void {
  assertAgentsDirPrivate(home);
  for (const name of listAgentNames(home)) assertPrivate(agentTokenPath(home, name), 'file');
}

/** markAgentUsed records that the daemon accepted the agent's token at `when`. */
export function markAgentUsed(home: string, name: string, when: Date): void {
  try {
    utimesSync(agentMetaPath(home, name), when, when);
  } catch (error) {
    // A missing record (an agent removed a moment ago) has no use to record.
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

function missingAgent(home: string, name: string): DataDirError {
  return new DataDirError('missing', agentTokenPath(home, name), `There is no agent named "${name}"`, `create it with latch agent add ${name} (latch agent list shows the agents)`);
}

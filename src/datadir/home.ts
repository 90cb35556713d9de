import { chmodSync, lstatSync, mkdirSync, unlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { removeStaleTemporaries, STALE_TEMPORARY_AGE_MS } from './stale-temporaries.js';
import { AGENT_NAME_PATTERN, AGENT_NAME_TEXT } from '../ids/agent-name.js';
import { AGENT_FILE_SUFFIXES, DATA_FILES, HOME_DIR_MODE } from './data-files.js';

export { AGENT_FILE_SUFFIXES, DATA_FILES, HOME_DIR_MODE, PRIVATE_FILE_MODE, dataFilePath, knownDataFiles, type DataFileName } from './data-files.js';

/** The folder of agent files inside the data directory (see agents.ts). */
export const AGENTS_DIR = 'agents';
/** An agent's name (the one pattern is in src/ids/agent-name.ts). */
export { AGENT_NAME_PATTERN };

const AGENT_FILE_NAME = new RegExp(`^${AGENT_NAME_TEXT}(?:${Object.values(AGENT_FILE_SUFFIXES).map((suffix) => suffix.replace('.', '\\.')).join('|')})$`);

/** `latch console`'s page that redirects to a one-time login link (src/cli/login-page.ts). */
export const CONSOLE_LOGIN_PAGE = 'console-login.html';
/** `latch start`'s note of its sandbox (src/cli/commands/start.ts). */
export const SANDBOX_NOTE = 'sandbox.json';
/** The audit log's lock, taken by link (audit-lock.ts). */
export const AUDIT_LOCK = 'audit.lock';
/** The daemon's public key a client pinned (src/client/pinned-key.ts, PINNED_KEY_FILE). */
export const PINNED_DAEMON_KEY = 'daemon_key.pub';

/**
 * Every file Latch may write in the data directory by write-to-temporary and rename, or lock by
 * link: the data files, the audit lock, a client's pinned daemon key, `latch start`'s note of its
 * sandbox and `latch console`'s login page. test/datadir/written-temporaries.test.ts walks every
 * writer and fails when one writes a file this table (or AGENT_FILE_SUFFIXES) does not name.
 */
export const WRITTEN_FILES: ReadonlySet<string> = new Set([...Object.values(DATA_FILES), AUDIT_LOCK, PINNED_DAEMON_KEY, SANDBOX_NOTE, CONSOLE_LOGIN_PAGE]);

/** isAgentsFolderFile reports whether name is a file Latch writes in AGENTS_DIR. */
export function isAgentsFolderFile(name: string): boolean {
  return AGENT_FILE_NAME.test(name);
}

/**
 * resolveHome returns the absolute data directory: `LATCH_HOME` when set and non-empty, otherwise
 * `~/.latch`. A relative `LATCH_HOME` is resolved against the working directory, so that later
 * error messages name an absolute path.
 */
export function resolveHome(env: NodeJS.ProcessEnv = process.env): string {
  const configured = env['LATCH_HOME'];
  if (configured !== undefined && configured !== '') return path.resolve(configured);
  return path.join(os.homedir(), '.latch');
}

/**
 * ensureHome creates the data directory with mode 0700 when it does not exist. Missing parents are
 * created with the usual mode. An existing directory keeps its permissions: a directory with loose
 * permissions is refused by assertDataDirSecure rather than silently repaired, so that the user
 * learns someone may have read it. Temporary files abandoned in it, or in its agents folder, by a
 * crashed writer (which may hold an unused token or key) are removed.
 */
export function ensureHome(home: string): void {
  mkdirSync(path.dirname(home), { recursive: true });
  try {
    mkdirSync(home, { mode: HOME_DIR_MODE });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    removeDataDirTemporaries(home);
    return;
  }
  // The umask can only remove bits, but a umask such as 0o277 would leave the owner unable to
  // write; we created the directory, so setting the exact mode is safe.
  chmodSync(home, HOME_DIR_MODE);
}

/**
 * removeDataDirTemporaries removes the temporaries a crashed writer abandoned in the data
 * directory and in its agents folder (see stale-temporaries.ts): of every file Latch writes
 * there, and of nothing else. It returns how many it removed.
 */
export function removeDataDirTemporaries(home: string, nowMs: number = Date.now()): number {
  const removed = removeStaleTemporaries(home, (name) => WRITTEN_FILES.has(name), nowMs) + removeSpentLoginPage(home, nowMs);
  // Only a real folder: an agents link (refused later) could point at someone else's files.
  const agents = path.join(home, AGENTS_DIR);
  return isRealDirectory(agents) ? removed + removeStaleTemporaries(agents, isAgentsFolderFile, nowMs) : removed;
}

/**
 * removeSpentLoginPage removes `latch console`'s login page once its code has expired (a code
 * lives 60 s, STALE_TEMPORARY_AGE_MS): a spent code is no secret, but a file that only ever held
 * one has no reason to stay.
 */
function removeSpentLoginPage(home: string, nowMs: number): number {
  const file = path.join(home, CONSOLE_LOGIN_PAGE);
  try {
    const stats = lstatSync(file);
    const uid = typeof process.getuid === 'function' ? process.getuid() : stats.uid;
    if (!stats.isFile() || stats.uid !== uid || nowMs - stats.mtimeMs < STALE_TEMPORARY_AGE_MS) return 0;
    unlinkSync(file);
    return 1;
  } catch {
    return 0;
  }
}

function isRealDirectory(target: string): boolean {
  try {
    return lstatSync(target).isDirectory();
  } catch {
    return false;
  }
}

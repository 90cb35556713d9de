/**
 * How a command gets the owner's presence (docs/decisions.md §21): it calls the daemon as it is;
 * when the daemon answers owner_presence_required — or the caller has no daemon token to call with
 * (the separate-user setup) — it asks for the owner passphrase (on the terminal without echo, or
 * the first line of standard input with --passphrase-stdin), proves the daemon against the pinned
 * key, opens an owner session and calls again. The session lives in this process's memory only
 * and is ended when the command finishes.
 */
import { existsSync } from 'node:fs';
import { pinnedKeyPath } from '../client/pinned-key.js';
import type { LatchClient } from '../client/latch-client.js';
import { LatchClientError } from '../client/client-errors.js';
import { readToken } from '../datadir/token.js';
import { passphraseIsSet } from './approvals/owner-input.js';
import { stdinPassphrase, terminalKeys, withKeys } from './approvals/owner-input.js';
import type { CliIo } from './command.js';
import { readSecret } from './terminal/prompts.js';

/** hasDaemonToken reports whether this data directory holds a daemon token this user can read. */
export function hasDaemonToken(home: string): boolean {
  try {
    readToken(home);
    return true;
  } catch {
    return false;
  }
}

/** canAsk reports whether standard input is a terminal to ask the passphrase on. */
function canAsk(io: CliIo): boolean {
  return io.stdin !== undefined && (io.stdin as NodeJS.ReadStream).isTTY === true;
}

/**
 * isOwnerHomeOfAnotherDaemon reports whether home is an owner's own data directory in the
 * separate-user setup: a daemon key is pinned there, and there is no daemon token this user can
 * read. Commands that would write the daemon's files then go through its API (docs/decisions.md §21.7).
 */
export function isOwnerHomeOfAnotherDaemon(home: string): boolean {
  return existsSync(pinnedKeyPath(home)) && !hasDaemonToken(home);
}

/** askOwnerPassphrase reads the owner passphrase from standard input or the terminal; it is never echoed. */
export async function askOwnerPassphrase(io: CliIo, passphraseStdin: boolean): Promise<string> {
  if (passphraseStdin) return stdinPassphrase(io);
  const keys = terminalKeys(io, 'this needs the owner passphrase; give it with --passphrase-stdin');
  return withKeys(keys, (k) => readSecret(k, io.stderr, 'Owner passphrase (not shown): '));
}

/**
 * withOwnerPresence runs call, with an owner session when the daemon needs the owner's presence
 * (or when there is no daemon token here); the session is ended before it returns.
 */
export async function withOwnerPresence<T>(client: LatchClient, io: CliIo, options: { passphraseStdin: boolean; openWithoutToken?: boolean }, call: () => Promise<T>): Promise<T> {
  let opened = false;
  try {
    if (options.passphraseStdin || ((options.openWithoutToken ?? true) && !hasDaemonToken(client.home))) {
      await client.openOwnerSession(await askOwnerPassphrase(io, options.passphraseStdin));
      opened = true;
      return await call();
    }
    try {
      return await call();
    } catch (error) {
      if (!(error instanceof LatchClientError) || error.code !== 'owner_presence_required') throw error;
      // No terminal to ask on: say what the owner can do here, not what an HTTP caller would.
      if (!canAsk(io)) throw noTerminalForPassphrase(error);
    }
    await client.openOwnerSession(await askOwnerPassphrase(io, false));
    opened = true;
    return await call();
  } finally {
    if (opened) await client.endOwnerSession().catch(() => undefined);
  }
}

/** What the owner is told when the passphrase is needed and standard input is no terminal (docs/decisions.md §31.4). */
export const NO_TERMINAL_REMEDY = 'Run it in a terminal, or pass --passphrase-stdin and give the passphrase on the first line of standard input.';

function noTerminalForPassphrase(error: LatchClientError): LatchClientError {
  return new LatchClientError({
    code: error.code,
    status: error.status,
    specClass: 'Owner passphrase needed',
    message: 'This needs the owner passphrase, and standard input is not a terminal to ask it on.',
    remedy: NO_TERMINAL_REMEDY,
  });
}

/**
 * The line a command prints when it changed the data directory's files itself while an owner
 * passphrase is set (docs/decisions.md §31.3): the passphrase is asked by the daemon's API, and a
 * program running as the owner edits the files without it.
 */
export const DIRECT_EDIT_NOTE =
  'Changed the file directly; the passphrase guards the API, not your files. For a passphrase that also guards them, see the separate-user setup (SECURITY.md).';

/** directEditNote is `{note}` when a passphrase is set in home (a file edit then bypassed it), else nothing. */
export function directEditNote(home: string): { note?: string } {
  return passphraseIsSet(home) ? { note: DIRECT_EDIT_NOTE } : {};
}

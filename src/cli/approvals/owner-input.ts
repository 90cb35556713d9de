/**
 * How the approval commands get the owner's word: the passphrase (from the terminal without echo,
 * or the first line of standard input with --passphrase-stdin), or, when no passphrase is set, a
 * [y/N] on the terminal or --yes. None of it is ever printed or logged.
 */
import { DataDirError } from '../../datadir/data-dir-error.js';
import { readApprovalPassphrase } from '../../datadir/approval-passphrase.js';
import { UsageError, type CliIo } from '../command.js';
import { KeyInput } from '../terminal/key-input.js';
import { readChoice, readSecret } from '../terminal/prompts.js';
import { readStdinLine } from '../terminal/stdin-line.js';

/** What the owner said: approve (with the passphrase when one is set), or no. */
export type OwnerConsent = { approve: true; passphrase?: string } | { approve: false };

/**
 * passphraseIsSet reports whether approving needs the passphrase. A damaged file counts as set:
 * the daemon fails closed on it too, and asking costs nothing.
 */
export function passphraseIsSet(home: string): boolean {
  try {
    return readApprovalPassphrase(home) !== undefined;
  } catch (error) {
    if (error instanceof DataDirError) return true;
    throw error;
  }
}

/** The question approve asks when typing a passphrase is not already the confirmation. */
export const APPROVE_QUESTION = 'Approve exactly this request? [y/N] ';

/** terminalKeys returns standard input as keys, or throws a usage error naming the flag to use instead. */
export function terminalKeys(io: CliIo, instead: string): KeyInput {
  const keys = io.stdin === undefined ? undefined : new KeyInput(io.stdin);
  if (keys === undefined || !keys.isTerminal) throw new UsageError(`standard input is not a terminal: ${instead}`);
  return keys;
}

/** withKeys runs ask with the terminal in raw mode and always restores it. */
export async function withKeys<T>(keys: KeyInput, ask: (keys: KeyInput) => Promise<T>): Promise<T> {
  keys.start();
  try {
    return await ask(keys);
  } finally {
    keys.stop();
  }
}

/** stdinPassphrase reads the passphrase from the first line of standard input (--passphrase-stdin). */
export function stdinPassphrase(io: CliIo): Promise<string> {
  if (io.stdin === undefined) throw new UsageError('--passphrase-stdin needs standard input');
  return readStdinLine(io.stdin);
}

/**
 * ownerConsent asks for approval of the request already on the screen: with --passphrase-stdin
 * the first line of standard input; when a passphrase is set, the passphrase on the terminal
 * (typing it is the confirmation); otherwise --yes, or [y/N] on the terminal.
 */
export async function ownerConsent(io: CliIo, home: string, options: { passphraseStdin: boolean; yes: boolean }): Promise<OwnerConsent> {
  const needed = passphraseIsSet(home);
  if (options.passphraseStdin) {
    const passphrase = await stdinPassphrase(io);
    return needed ? { approve: true, passphrase } : { approve: true };
  }
  if (needed) {
    const keys = terminalKeys(io, 'an approval passphrase is set; give it with --passphrase-stdin');
    const passphrase = await withKeys(keys, (k) => readSecret(k, io.stderr, 'Approval passphrase (not shown): '));
    return { approve: true, passphrase };
  }
  if (options.yes) return { approve: true };
  const keys = terminalKeys(io, 'confirm with --yes (no approval passphrase is set)');
  const answer = await withKeys(keys, (k) => readChoice(k, io.stderr, APPROVE_QUESTION, ['y', 'n'] as const, 'n'));
  return answer === 'y' ? { approve: true } : { approve: false };
}

/**
 * sessionConsent is ownerConsent for an owner who already gave the passphrase for this command's
 * session (the separate-user setup): --yes or --passphrase-stdin count as yes, else [y/N] on the
 * terminal.
 */
export async function sessionConsent(io: CliIo, options: { given: boolean }): Promise<OwnerConsent> {
  if (options.given) return { approve: true };
  const keys = terminalKeys(io, 'confirm with --yes');
  const answer = await withKeys(keys, (k) => readChoice(k, io.stderr, APPROVE_QUESTION, ['y', 'n'] as const, 'n'));
  return answer === 'y' ? { approve: true } : { approve: false };
}

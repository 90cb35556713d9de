/**
 * The stable reasons a data-directory operation fails. Callers switch on these, never on the
 * message text.
 */
export type DataDirErrorCode =
  | 'insecure_permissions'
  | 'wrong_owner'
  | 'symlink'
  | 'wrong_type'
  | 'too_large'
  | 'missing'
  | 'exists'
  | 'corrupt'
  | 'invalid_value'
  | 'passphrase_required'
  | 'wrong_passphrase'
  | 'invalid_passphrase'
  | 'locked'
  | 'write_failed';

/**
 * DataDirError is a startup or CLI failure about a file in the data directory. It is not an HTTP
 * error: the daemon prints it and exits non-zero. The message names the file and the exact fix, in
 * the manner of OpenSSH's "UNPROTECTED PRIVATE KEY FILE", and never includes a file's contents.
 */
export class DataDirError extends Error {
  readonly code: DataDirErrorCode;
  /** The file or directory the problem is about (an absolute path, or an environment variable name). */
  readonly file: string;
  /** The command or action that fixes the problem, e.g. `chmod 600 /home/u/.latch/daemon_token`. */
  readonly fix: string;

  constructor(code: DataDirErrorCode, file: string, problem: string, fix: string) {
    super(`${problem} (file: ${file}). Fix: ${fix}`);
    this.name = 'DataDirError';
    this.code = code;
    this.file = file;
    this.fix = fix;
  }
}

// Characters that need no quoting in a POSIX shell word.
const SHELL_SAFE = /^[A-Za-z0-9_\/.,:=+@%-]+$/;

/**
 * shellQuote quotes a path so that a fix such as `chmod 600 <path>` can be pasted into a POSIX
 * shell even when the path contains spaces or quotes.
 */
export function shellQuote(text: string): string {
  if (SHELL_SAFE.test(text)) return text;
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/**
 * Where the device key's passphrase comes from (docs/decisions.md §36, issue 44 item 6). A service
 * should not need a secret in its environment (`systemctl show` prints a unit's Environment= to
 * anyone), so besides LATCH_KEY_PASSPHRASE the passphrase may be a file: the one
 * LATCH_KEY_PASSPHRASE_FILE names, or systemd's credential `latch-key-passphrase`
 * (`LoadCredential=latch-key-passphrase:/etc/latch/key-passphrase` in the unit, which systemd
 * hands to the service, readable by it alone, in $CREDENTIALS_DIRECTORY).
 *
 * A passphrase file must be this user's alone (0400 or 0600, not a link, a regular file); one
 * that is not stops the command with the file and the fix, as every data file does.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import path from 'node:path';
import { DataDirError } from './data-dir-error.js';
import { readPrivateFile } from './read-private-file.js';
import { passphraseFromEnv } from '../signer/key-admin.js';

/** The variable naming a file that holds the passphrase. */
export const PASSPHRASE_FILE_ENV = 'LATCH_KEY_PASSPHRASE_FILE';
/** The name of the systemd credential that holds the passphrase. */
export const PASSPHRASE_CREDENTIAL = 'latch-key-passphrase';

const PASSPHRASE_FILE_BYTES_MAX = 4096;

/**
 * keyPassphrase returns the device key's passphrase: LATCH_KEY_PASSPHRASE, else the file
 * LATCH_KEY_PASSPHRASE_FILE names, else the systemd credential latch-key-passphrase; undefined
 * when none is given. One trailing newline of a file is not part of the passphrase.
 */
export function keyPassphrase(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const fromEnv = passphraseFromEnv(env);
  if (fromEnv !== undefined) return fromEnv;
  const named = env[PASSPHRASE_FILE_ENV];
  if (named !== undefined && named !== '') {
    if (!path.isAbsolute(named)) throw new DataDirError('invalid_value', PASSPHRASE_FILE_ENV, `${PASSPHRASE_FILE_ENV} must be an absolute path`, `set ${PASSPHRASE_FILE_ENV} to the absolute path of a 0400 file that holds the passphrase`);
    const text = readPrivateFile(named, PASSPHRASE_FILE_BYTES_MAX);
    if (text === undefined) throw new DataDirError('missing', named, `${PASSPHRASE_FILE_ENV} names a file that does not exist`, `write the passphrase there (install -m 0400 /dev/stdin ${named}), or unset ${PASSPHRASE_FILE_ENV}`);
    return fromFile(text, named);
  }
  const credentials = env['CREDENTIALS_DIRECTORY'];
  if (credentials !== undefined && path.isAbsolute(credentials)) {
    const file = path.join(credentials, PASSPHRASE_CREDENTIAL);
    const text = readCredential(file);
    if (text !== undefined) return fromFile(text, file);
  }
  return undefined;
}

/**
 * readCredential reads a systemd credential: a regular file (never through a link) that nobody
 * else may write. systemd makes it readable by the service's user alone, in its own read-only
 * directory, owned by root or by that user (an ACL may grant the read), so the owner is not checked.
 */
function readCredential(file: string): string | undefined {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new DataDirError('wrong_type', file, `The systemd credential ${PASSPHRASE_CREDENTIAL} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`, `check LoadCredential=${PASSPHRASE_CREDENTIAL}:… in the unit`);
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile() || (stats.mode & 0o022) !== 0 || stats.size > PASSPHRASE_FILE_BYTES_MAX) {
      throw new DataDirError('wrong_type', file, `The systemd credential ${PASSPHRASE_CREDENTIAL} is not a small regular file only root can change`, `check LoadCredential=${PASSPHRASE_CREDENTIAL}:… in the unit`);
    }
    const buffer = Buffer.alloc(PASSPHRASE_FILE_BYTES_MAX);
    return buffer.subarray(0, readSync(fd, buffer, 0, PASSPHRASE_FILE_BYTES_MAX, 0)).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

function fromFile(text: string, file: string): string {
  const passphrase = text.endsWith('\r\n') ? text.slice(0, -2) : text.endsWith('\n') ? text.slice(0, -1) : text;
  if (passphrase === '') throw new DataDirError('invalid_passphrase', file, 'The device key passphrase file is empty', `write the passphrase chosen at setup into ${file}`);
  return passphrase;
}

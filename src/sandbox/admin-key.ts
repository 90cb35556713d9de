import { randomBytes } from 'node:crypto';
import { closeSync, constants, fstatSync, openSync, readFileSync, writeSync, fsyncSync } from 'node:fs';
import path from 'node:path';
import { toBase64Url } from '../crypto/base64url.js';
import { assertPrivateStats } from '../datadir/permissions.js';

/** The admin key file's name inside the sandbox data directory (docs/decisions.md §12). */
export const ADMIN_KEY_FILE = 'admin_key';
const ADMIN_KEY = /^[A-Za-z0-9_-]{43}$/;

/**
 * loadOrCreateAdminKey returns the sandbox admin key from `<dataDir>/admin_key`, creating it
 * (32 random bytes, base64url, mode 0600, O_EXCL) on first start. An existing file must be a
 * private regular file of this user, or the sandbox refuses to start, as the daemon does with
 * its own secrets. Restarts keep the key, so clients holding it stay valid.
 */
export function loadOrCreateAdminKey(dataDir: string): { adminKey: string; adminKeyPath: string } {
  const adminKeyPath = path.join(dataDir, ADMIN_KEY_FILE);
  let fd: number;
  try {
    fd = openSync(adminKeyPath, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    return { adminKey: createAdminKey(adminKeyPath), adminKeyPath };
  }
  try {
    assertPrivateStats(fstatSync(fd), adminKeyPath, 'file');
    const adminKey = readFileSync(fd, 'utf8').trim();
    if (!ADMIN_KEY.test(adminKey)) {
      throw new Error(`The sandbox admin key file ${adminKeyPath} is malformed; delete it and restart the sandbox to make a new one.`);
    }
    return { adminKey, adminKeyPath };
  } finally {
    closeSync(fd);
  }
}

function createAdminKey(adminKeyPath: string): string {
  const adminKey = toBase64Url(randomBytes(32));
  const fd = openSync(adminKeyPath, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  try {
    writeSync(fd, `${adminKey}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  return adminKey;
}

/**
 * What root reads of the service user's data directory to pin its daemon (docs/decisions.md §30):
 * only config.json's key_id. The directory and file belong to the service user, who could have
 * put a symbolic link or a FIFO there, so root opens without following links or waiting, and
 * accepts only a small regular file owned by the service user in a real directory of theirs.
 */
import { closeSync, constants, fstatSync, lstatSync, openSync, readSync } from 'node:fs';
import path from 'node:path';
import type { ServiceUser } from './service-user.js';

const CONFIG_BYTES_MAX = 64 * 1024;
const KEY_ID_SHAPE = /^[A-Za-z0-9_-]{43}$/;
const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const O_NONBLOCK = constants.O_NONBLOCK ?? 0;

/**
 * serviceKeyId returns the key id the service's config.json recorded at enrollment, or undefined
 * when the daemon is not enrolled yet (or the directory or file is not the service user's own).
 */
export function serviceKeyId(home: string, user: ServiceUser): string | undefined {
  try {
    const dir = lstatSync(home);
    if (dir.isSymbolicLink() || !dir.isDirectory() || dir.uid !== user.uid) return undefined;
  } catch {
    return undefined;
  }
  let fd: number;
  try {
    fd = openSync(path.join(home, 'config.json'), constants.O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile() || stats.uid !== user.uid || stats.size > CONFIG_BYTES_MAX) return undefined;
    const buffer = Buffer.alloc(CONFIG_BYTES_MAX);
    const text = buffer.subarray(0, readSync(fd, buffer, 0, CONFIG_BYTES_MAX, 0)).toString('utf8');
    const keyId = (JSON.parse(text) as { key_id?: unknown }).key_id;
    return typeof keyId === 'string' && KEY_ID_SHAPE.test(keyId) ? keyId : undefined;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

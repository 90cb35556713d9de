import { syncFiles } from '../store/file-system.js';
import { constants } from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { PRIVATE_FILE_MODE } from './data-files.js';

// O_NOFOLLOW refuses to open through a symbolic link; it does not exist on Windows.
const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const CREATE_NEW = constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY | O_NOFOLLOW;
// Errors from link() that mean "this filesystem has no hard links", not "the file exists".
const LINK_UNSUPPORTED: ReadonlySet<string> = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EXDEV']);

/**
 * createExclusive creates path with the given contents, failing with EEXIST when it already
 * exists. The contents are written and fsynced in a temporary file born at its final mode, which
 * is then hard-linked to path: link() fails when path exists, like O_EXCL, and a concurrent reader
 * sees no file or the whole file, never an empty one. Where hard links are unsupported, path is
 * opened with O_EXCL directly instead.
 */
export function createExclusive(target: string, data: string | Uint8Array, mode = PRIVATE_FILE_MODE): void {
  const temporary = temporaryPath(target);
  writeNewFile(temporary, data, mode);
  try {
    syncFiles().linkSync(temporary, target);
  } catch (error) {
    unlinkQuietly(temporary);
    if (!LINK_UNSUPPORTED.has((error as NodeJS.ErrnoException).code ?? '')) throw error;
    writeNewFile(target, data, mode);
    fsyncDirectory(path.dirname(target));
    return;
  }
  unlinkQuietly(temporary);
  fsyncDirectory(path.dirname(target));
}

/**
 * writeFileAtomic replaces path with the given contents so that a reader, or a crash, sees either
 * the old file or the new one and never a mix: it writes a randomly named temporary file in the
 * same directory at the final mode, fsyncs it, renames it over path, and fsyncs the directory.
 * On any failure the temporary file is removed and the old file is left as it was. A symbolic
 * link at path is replaced, not followed.
 */
export function writeFileAtomic(target: string, data: string | Uint8Array, mode = PRIVATE_FILE_MODE): void {
  const directory = path.dirname(target);
  const temporary = temporaryPath(target);
  writeNewFile(temporary, data, mode);
  try {
    syncFiles().renameSync(temporary, target);
  } catch (error) {
    unlinkQuietly(temporary);
    throw error;
  }
  fsyncDirectory(directory);
}

/**
 * fsyncDirectory makes a create or rename in directory durable. Platforms that cannot fsync a
 * directory (Windows) are tolerated, since there is nothing more to do there.
 */
export function fsyncDirectory(directory: string): void {
  let fd: number;
  try {
    fd = syncFiles().openSync(directory, constants.O_RDONLY);
  } catch (error) {
    if (process.platform === 'win32') return;
    throw error;
  }
  try {
    syncFiles().fsyncSync(fd);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EINVAL' && code !== 'EISDIR' && code !== 'EPERM') throw error;
  } finally {
    syncFiles().closeSync(fd);
  }
}

/** writeAll writes every byte of data at the descriptor's current position. */
export function writeAll(fd: number, data: string | Uint8Array): void {
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  let written = 0;
  while (written < bytes.length) written += syncFiles().writeSync(fd, bytes, written, bytes.length - written);
}

/**
 * writeNewFile creates a file that must not exist yet (O_EXCL, no symbolic links), writes and
 * fsyncs it at exactly mode, and removes it again on any failure.
 */
function writeNewFile(target: string, data: string | Uint8Array, mode: number): void {
  const fd = syncFiles().openSync(target, CREATE_NEW, mode);
  try {
    writeAndSync(fd, data, mode);
  } catch (error) {
    closeQuietly(fd);
    unlinkQuietly(target);
    throw error;
  }
  try {
    syncFiles().closeSync(fd);
  } catch (error) {
    unlinkQuietly(target);
    throw error;
  }
}

/** temporaryPath names the temporary file written beside target before it is renamed into place. */
export function temporaryPath(target: string): string {
  // The name starts with a dot and carries random bytes, so that it cannot collide with a real
  // file or with a concurrent writer, and O_EXCL refuses anything planted there in advance.
  return path.join(path.dirname(target), `.${path.basename(target)}.${randomBytes(8).toString('hex')}.tmp`);
}

function writeAndSync(fd: number, data: string | Uint8Array, mode: number): void {
  // The umask may have removed bits from the requested mode; the file is new and only ours, so
  // setting the exact mode here opens no window.
  if (process.platform !== 'win32') syncFiles().fchmodSync(fd, mode);
  writeAll(fd, data);
  syncFiles().fsyncSync(fd);
}

function closeQuietly(fd: number): void {
  try {
    syncFiles().closeSync(fd);
  } catch {
    // Already closed, or closing failed after an earlier error that is the one worth reporting.
  }
}

function unlinkQuietly(target: string): void {
  try {
    syncFiles().unlinkSync(target);
  } catch {
    // Nothing to remove, or removal failed; the original error is the one worth reporting.
  }
}

import { syncFiles } from '../store/file-system.js';
import { constants, type Stats } from 'node:fs';
import { DataDirError, shellQuote } from './data-dir-error.js';
import { PRIVATE_FILE_MODE } from './data-files.js';
import { assertPrivateStats } from './permissions.js';

// O_NOFOLLOW makes open fail on a symbolic link; it does not exist on Windows.
const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;
// O_NONBLOCK makes open return at once on a FIFO (which would otherwise wait for a writer and
// freeze the event loop); on a regular file it changes nothing. It does not exist on Windows.
const O_NONBLOCK = constants.O_NONBLOCK ?? 0;

/** An open data-directory file that passed the ownership and mode checks. */
export interface OpenedPrivateFile {
  fd: number;
  stats: Stats;
}

/**
 * openPrivateFile opens a data-directory file without following symbolic links and without
 * waiting (a FIFO or a device in its place must not block the daemon), and checks owner, mode and
 * type on the open descriptor, so nothing can be swapped between the check and the use: anything
 * but a regular file is refused before a byte is read. It returns undefined when the file does
 * not exist (and flags do not create it). A file it creates is born at 0600.
 */
export function openPrivateFile(target: string, flags: number): OpenedPrivateFile | undefined {
  let fd: number;
  try {
    fd = syncFiles().openSync(target, flags | O_NOFOLLOW | O_NONBLOCK, PRIVATE_FILE_MODE);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    if (code === 'ELOOP') {
      throw new DataDirError('symlink', target, 'Refusing a data file that is a symbolic link', `replace the link with a regular file: rm ${shellQuote(target)}`);
    }
    // ENXIO: a FIFO opened for writing that no one reads; it is not a regular file either.
    if (code === 'ENXIO') throw notRegularFile(target);
    throw error;
  }
  try {
    const stats = syncFiles().fstatSync(fd);
    assertPrivateStats(stats, target, 'file');
    return { fd, stats };
  } catch (error) {
    syncFiles().closeSync(fd);
    throw error;
  }
}

/**
 * readPrivateFile reads a small data-directory file as UTF-8, or returns undefined when it does
 * not exist. The checks of openPrivateFile apply, and files larger than maxBytes are refused
 * instead of read, since every such Latch file is small.
 */
export function readPrivateFile(target: string, maxBytes: number): string | undefined {
  return readPrivateFileWithStats(target, maxBytes)?.text;
}

/** readPrivateFileWithStats is readPrivateFile that also returns the stats of the descriptor it read. */
export function readPrivateFileWithStats(target: string, maxBytes: number): { text: string; stats: Stats } | undefined {
  const opened = openPrivateFile(target, constants.O_RDONLY);
  if (opened === undefined) return undefined;
  const { fd, stats } = opened;
  try {
    if (stats.size > maxBytes) {
      throw new DataDirError('too_large', target, `The file is larger than the ${maxBytes} bytes it can be`, `move it aside: mv ${shellQuote(target)} ${shellQuote(`${target}.bak`)}`);
    }
    const buffer = Buffer.alloc(stats.size);
    let filled = 0;
    while (filled < buffer.length) {
      const read = syncFiles().readSync(fd, buffer, filled, buffer.length - filled, filled);
      if (read === 0) break;
      filled += read;
    }
    const text = buffer.subarray(0, filled).toString('utf8');
    // The string copy cannot be wiped, but the raw bytes of a secret need not linger too.
    buffer.fill(0);
    return { text, stats };
  } finally {
    syncFiles().closeSync(fd);
  }
}

function notRegularFile(target: string): DataDirError {
  return new DataDirError('wrong_type', target, 'Expected a regular file', `move it aside and let Latch recreate it: mv ${shellQuote(target)} ${shellQuote(`${target}.bak`)}`);
}

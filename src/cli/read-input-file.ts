/**
 * Reading a file a person names on the command line (an evidence pack, a JWKS) without trusting
 * what it is: a FIFO would make a plain read wait for a writer for ever, and /dev/zero or a growing
 * file would be read without end. So the file is opened without waiting, checked to be a regular
 * file on the open descriptor, and read only up to the limit, whatever its size claimed.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { UsageError } from './command.js';

// O_NONBLOCK makes open return at once on a FIFO (which would otherwise wait for a writer); on a
// regular file it changes nothing. It does not exist on Windows.
const O_NONBLOCK = constants.O_NONBLOCK ?? 0;

/**
 * readInputFile returns the file's bytes, or undefined when it holds more than maxBytes (only
 * maxBytes + 1 are read to learn that). A missing file or anything but a regular file is a
 * UsageError (exit 2) naming the file as `what`; other failures (EACCES) are thrown as they are.
 */
export function readInputFile(file: string, maxBytes: number, what: string): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new UsageError(`${what} ${file}: no such file`);
    if (code === 'EISDIR') throw new UsageError(`${what} ${file}: a directory, not a file`);
    throw error;
  }
  try {
    if (!fstatSync(fd).isFile()) throw new UsageError(`${what} ${file}: not a regular file (a FIFO, a device or a directory is never read)`);
    const buffer = Buffer.alloc(maxBytes + 1);
    let filled = 0;
    while (filled < buffer.length) {
      const read = readSync(fd, buffer, filled, buffer.length - filled, null);
      if (read === 0) break;
      filled += read;
    }
    return filled > maxBytes ? undefined : buffer.subarray(0, filled);
  } finally {
    closeSync(fd);
  }
}

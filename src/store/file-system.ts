import { constants, promises as fs, type Stats } from 'node:fs';

/**
 * The one small interface every file operation of a journal goes through (docs/decisions.md
 * §33): open, read, write, fsync, truncate, rename, unlink and a directory's fsync. The daemon
 * uses the node implementation below; the crash simulator (test/simulation/) passes one that
 * keeps files in memory, drops what was never fsynced and stops at the Nth write, fsync or rename.
 */

/** An open file: the subset of node's FileHandle the journal uses. */
export interface FileHandlePort {
  stat(): Promise<Stats>;
  read(buffer: Uint8Array, offset: number, length: number, position: number): Promise<{ bytesRead: number }>;
  readFile(): Promise<Buffer>;
  write(buffer: Uint8Array, offset: number, length: number): Promise<{ bytesWritten: number }>;
  truncate(length: number): Promise<void>;
  sync(): Promise<void>;
  datasync(): Promise<void>;
  chmod(mode: number): Promise<void>;
  close(): Promise<void>;
}

/** The file system as a journal sees it. */
export interface FileSystemPort {
  open(file: string, flags: number, mode?: number): Promise<FileHandlePort>;
  rename(from: string, to: string): Promise<void>;
  unlink(file: string): Promise<void>;
  readdir(directory: string): Promise<string[]>;
  /** isRegularFile reports whether file is a regular file (not following a link); false when missing. */
  isRegularFile(file: string): Promise<boolean>;
  /** syncDirectory makes a create or rename in directory durable. */
  syncDirectory(directory: string): Promise<void>;
}

/** The real file system. */
export const nodeFileSystem: FileSystemPort = {
  open: (file, flags, mode) => fs.open(file, flags, mode),
  rename: (from, to) => fs.rename(from, to),
  unlink: (file) => fs.unlink(file),
  readdir: (directory) => fs.readdir(directory),
  isRegularFile: async (file) => (await fs.lstat(file).catch(() => undefined))?.isFile() === true,
  async syncDirectory(directory) {
    // A new file's directory entry is durable only once the directory itself is fsynced.
    const handle = await fs.open(directory, constants.O_RDONLY);
    try {
      await handle.sync();
    } catch (error) {
      // Some platforms refuse fsync on a directory; the file's own fsync is then the best there is.
      if (!['EINVAL', 'EPERM', 'EISDIR'].includes((error as NodeJS.ErrnoException).code ?? '')) throw error;
    } finally {
      await handle.close();
    }
  },
};

import { closeSync, constants, fchmodSync, fdatasync as fdatasyncCallback, fdatasyncSync, fstatSync, fsyncSync, linkSync, openSync, promises as fs, readSync, renameSync, unlinkSync, writeSync, type Stats } from 'node:fs';
import { promisify } from 'node:util';

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

/**
 * The synchronous, descriptor-level operations of audit.log, audit.head, audit.lock and the data
 * directory's private files (src/datadir/audit-*.ts, read-private-file.ts, atomic-file.ts): the
 * same port for the audit side, whose writer works on descriptors and waits for the disk with
 * fdatasync off the event loop.
 */
export interface SyncFileSystemPort {
  openSync(file: string, flags: number, mode?: number): number;
  fstatSync(fd: number): Stats;
  readSync(fd: number, buffer: Uint8Array, offset: number, length: number, position: number | null): number;
  writeSync(fd: number, buffer: Uint8Array, offset?: number, length?: number, position?: number | null): number;
  fsyncSync(fd: number): void;
  fdatasyncSync(fd: number): void;
  /** fdatasync waits for the disk off the event loop. */
  fdatasync(fd: number): Promise<void>;
  fchmodSync(fd: number, mode: number): void;
  closeSync(fd: number): void;
  renameSync(from: string, to: string): void;
  linkSync(existing: string, created: string): void;
  unlinkSync(file: string): void;
}

const fdatasyncAsync = promisify(fdatasyncCallback);

/** The real file system, synchronously. */
export const nodeSyncFileSystem: SyncFileSystemPort = {
  openSync: (file, flags, mode) => openSync(file, flags, mode),
  fstatSync: (fd) => fstatSync(fd),
  readSync: (fd, buffer, offset, length, position) => readSync(fd, buffer, offset, length, position),
  writeSync: (fd, buffer, offset, length, position) => writeSync(fd, buffer, offset, length, position),
  fsyncSync: (fd) => fsyncSync(fd),
  fdatasyncSync: (fd) => fdatasyncSync(fd),
  fdatasync: (fd) => fdatasyncAsync(fd),
  fchmodSync: (fd, mode) => fchmodSync(fd, mode),
  closeSync: (fd) => closeSync(fd),
  renameSync: (from, to) => renameSync(from, to),
  linkSync: (existing, created) => linkSync(existing, created),
  unlinkSync: (file) => unlinkSync(file),
};

let syncPort: SyncFileSystemPort = nodeSyncFileSystem;

/** syncFiles is the synchronous port in use: the real file system, unless the crash simulator replaced it. */
export function syncFiles(): SyncFileSystemPort {
  return syncPort;
}

/** useSyncFileSystem replaces the synchronous port for this process (the crash simulator) and returns how to restore it. */
export function useSyncFileSystem(port: SyncFileSystemPort): () => void {
  const previous = syncPort;
  syncPort = port;
  return () => {
    syncPort = previous;
  };
}

/**
 * The open files of the simulated disks (simulated-fs.ts), for both ports, and SimulatedDisks:
 * the synchronous port over every simulated data directory of the process.
 */
import type { Stats } from 'node:fs';
import path from 'node:path';
import type { FileHandlePort, SyncFileSystemPort } from '../../src/store/file-system.js';
import type { SimFile, SimulatedFileSystem } from './simulated-fs.js';

/** enoent is the error of a missing file. */
export function enoent(file: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`ENOENT: no such file, ${file}`), { code: 'ENOENT' });
}

/** One open file (or the directory, file undefined, which only fsyncs), for both ports. */
export class SimHandle implements FileHandlePort {
  position = 0;

  constructor(
    private readonly fs: SimulatedFileSystem,
    private readonly opened: SimFile | undefined,
    private readonly append: boolean,
  ) {}

  private get file(): SimFile {
    if (this.opened === undefined) throw Object.assign(new Error('EISDIR: a directory'), { code: 'EISDIR' });
    return this.opened;
  }

  statSync(): Stats {
    this.fs.checkAlive();
    const size = this.file.data.length;
    const uid = process.getuid?.() ?? 0;
    return { size, mode: 0o100600, uid, isFile: () => true, isDirectory: () => false, isSymbolicLink: () => false } as unknown as Stats;
  }

  readSync(buffer: Uint8Array, offset: number, length: number, position: number | null): number {
    this.fs.checkAlive();
    const at = position ?? this.position;
    const bytes = this.file.data.subarray(at, at + length);
    buffer.set(bytes, offset);
    if (position === null) this.position = at + bytes.length;
    return bytes.length;
  }

  writeSync(buffer: Uint8Array, offset = 0, length = buffer.byteLength - offset, position: number | null = null): number {
    const bytes = Buffer.from(buffer.subarray(offset, offset + length));
    const at = position ?? (this.append ? this.file.data.length : this.position);
    this.fs.handleWrite(this.file, bytes, at);
    if (position === null) this.position = at + bytes.length;
    return bytes.length;
  }

  syncNow(): void {
    if (this.opened === undefined) this.fs.syncDirectoryNow();
    else this.fs.handleSync(this.opened);
  }

  async stat(): Promise<Stats> {
    return this.statSync();
  }

  async read(buffer: Uint8Array, offset: number, length: number, position: number): Promise<{ bytesRead: number }> {
    return { bytesRead: this.readSync(buffer, offset, length, position) };
  }

  async readFile(): Promise<Buffer> {
    this.fs.checkAlive();
    return Buffer.from(this.file.data);
  }

  async write(buffer: Uint8Array, offset: number, length: number): Promise<{ bytesWritten: number }> {
    return { bytesWritten: this.writeSync(buffer, offset, length, null) };
  }

  async truncate(length: number): Promise<void> {
    this.fs.handleTruncate(this.file, length);
  }

  async sync(): Promise<void> {
    this.syncNow();
  }

  async datasync(): Promise<void> {
    this.syncNow();
  }

  async chmod(_mode: number): Promise<void> {
    this.fs.checkAlive();
  }

  async close(): Promise<void> {
    // Closing writes nothing; a closed handle is not used again.
  }
}

/**
 * SimulatedDisks is the synchronous port over every simulated data directory of a process: a
 * path goes to the file system serving its directory, a descriptor to the one that opened it.
 */
export class SimulatedDisks implements SyncFileSystemPort {
  private readonly mounts = new Map<string, SimulatedFileSystem>();
  private readonly descriptors = new Map<number, SimHandle>();
  private nextFd = 1000;

  mount(fs: SimulatedFileSystem): void {
    this.mounts.set(fs.directory, fs);
  }

  unmount(directory: string): void {
    this.mounts.delete(directory);
  }

  private serving(file: string): SimulatedFileSystem {
    const fs = this.mounts.get(file) ?? this.mounts.get(path.dirname(file));
    if (fs === undefined) throw enoent(file);
    return fs;
  }

  private handle(fd: number): SimHandle {
    const handle = this.descriptors.get(fd);
    if (handle === undefined) throw Object.assign(new Error(`EBADF: ${fd}`), { code: 'EBADF' });
    return handle;
  }

  openSync(file: string, flags: number): number {
    const handle = this.serving(file).openFile(file, flags);
    const fd = this.nextFd++;
    this.descriptors.set(fd, handle);
    return fd;
  }

  fstatSync(fd: number): Stats {
    return this.handle(fd).statSync();
  }

  readSync(fd: number, buffer: Uint8Array, offset: number, length: number, position: number | null): number {
    return this.handle(fd).readSync(buffer, offset, length, position);
  }

  writeSync(fd: number, buffer: Uint8Array, offset?: number, length?: number, position?: number | null): number {
    return this.handle(fd).writeSync(buffer, offset, length, position ?? null);
  }

  fsyncSync(fd: number): void {
    this.handle(fd).syncNow();
  }

  fdatasyncSync(fd: number): void {
    this.handle(fd).syncNow();
  }

  async fdatasync(fd: number): Promise<void> {
    this.handle(fd).syncNow();
  }

  fchmodSync(fd: number): void {
    this.handle(fd);
  }

  closeSync(fd: number): void {
    this.descriptors.delete(fd);
  }

  renameSync(from: string, to: string): void {
    this.serving(from).renameSync(from, to);
  }

  linkSync(existing: string, created: string): void {
    this.serving(existing).linkSync(existing, created);
  }

  unlinkSync(file: string): void {
    this.serving(file).unlinkSync(file);
  }
}

/**
 * A file system in memory that can crash, for the crash simulator (docs/decisions.md §33; the way
 * TigerBeetle's VOPR and FoundationDB's simulation work). It implements src/store/file-system.ts's
 * port, which every file operation of the journal goes through, and models what a power loss
 * keeps: a file's bytes as of its last fsync (and, chosen by the seed, a torn prefix of what was
 * written after it), and the directory as of its last fsync (and, chosen by the seed, a prefix of
 * the creates, renames and unlinks made after it, in order).
 *
 * It serves one directory (a simulated data directory). The journal reaches it through the async
 * port, the audit log through the synchronous one (SimulatedDisks routes descriptors and paths to
 * the file system that owns them, so a crashed process's late calls never touch its successor's).
 *
 * Every write, fsync (of a file or of the directory), rename and link is a numbered crash point. Told to
 * crash at point N, the file system refuses that operation and every one after it, as a process
 * killed there would never make them; `afterCrash()` then gives the disk as the power loss left it,
 * a new file system to replay from (or, for a kill, what the page cache kept).
 */
import { constants } from 'node:fs';
import path from 'node:path';
import type { FileHandlePort, FileSystemPort } from '../../src/store/file-system.js';
import { enoent, SimHandle } from './simulated-disks.js';
import type { SeededRandom } from '../adversarial/seeded-random.js';

/**
 * What a crash keeps: `kill` is a killed process (kill -9), after which everything it wrote is in
 * the page cache and survives; `power` is a power loss, which keeps only what was fsynced (and, by
 * the seed, a torn part of the rest).
 */
export type CrashKind = 'kill' | 'power';

/** The kinds of crash point. */
export type CrashPointKind = 'write' | 'fsync' | 'rename';

/** The error every operation at or after the crash point rejects with. */
export class SimulatedCrash extends Error {
  constructor(readonly point: number) {
    super(`simulated crash at point ${point}`);
    this.name = 'SimulatedCrash';
  }
}

/** One file: what is written now, and what its last fsync made durable. */
export class SimFile {
  constructor(
    public data: Buffer = Buffer.alloc(0),
    public durable: Buffer = Buffer.alloc(0),
  ) {}
}

type DirectoryOperation = { kind: 'link'; name: string; file: SimFile } | { kind: 'unlink'; name: string };


/** SimulatedFileSystem is one process's view of one simulated disk (one directory's files). */
export class SimulatedFileSystem implements FileSystemPort {
  /** The names as the process sees them. */
  private readonly names = new Map<string, SimFile>();
  /** The names as the last directory fsync made durable. */
  private durableNames = new Map<string, SimFile>();
  /** Creates, renames and unlinks since that fsync, in order. */
  private pendingDirectory: DirectoryOperation[] = [];
  /** Crash points passed so far, by kind and in all. */
  readonly counts = { write: 0, fsync: 0, rename: 0, all: 0 };
  private crashedAt: number | undefined;

  /**
   * @param crashAtPoint the crash point (1-based, over all kinds) at which to crash; undefined never.
   */
  constructor(
    /** The directory this file system serves; every name is a path in it. */
    readonly directory: string,
    private readonly crashAtPoint?: number,
    /** Told at the crash, in the same turn: nothing after it counts as acknowledged. */
    private readonly onCrash: () => void = () => undefined,
  ) {}

  /** crashed reports whether the crash point was reached: the process is dead from then on. */
  get crashed(): boolean {
    return this.crashedAt !== undefined;
  }

  /**
   * afterCrash returns the disk as a power loss at this moment leaves it, as a new file system
   * that never crashes: durable data and names, and the seed's share of what was not yet durable.
   */
  afterCrash(random: SeededRandom, directory: string, kind: CrashKind = 'power'): SimulatedFileSystem {
    const survivingOps = kind === 'kill' ? this.pendingDirectory : this.pendingDirectory.slice(0, random.int(this.pendingDirectory.length + 1));
    const names = new Map(this.durableNames);
    for (const op of survivingOps) {
      if (op.kind === 'link') names.set(op.name, op.file);
      else names.delete(op.name);
    }
    const next = new SimulatedFileSystem(directory);
    const survivors = new Map<SimFile, SimFile>();
    for (const [name, file] of names) {
      let copy = survivors.get(file);
      if (copy === undefined) {
        copy = new SimFile(kind === 'kill' ? Buffer.from(file.data) : survivingBytes(file, random));
        copy.durable = Buffer.from(copy.data);
        survivors.set(file, copy);
      }
      next.names.set(path.join(directory, path.relative(this.directory, name)), copy);
    }
    next.durableNames = new Map(next.names);
    return next;
  }

  /** fileBytes returns the named file's bytes as the process sees them (for checks). */
  // (paths are in this.directory)
  fileBytes(file: string): Buffer | undefined {
    return this.names.get(file)?.data;
  }

  /** point counts one crash point and throws at (and after) the one to crash at. */
  private point(kind: CrashPointKind): void {
    if (this.crashedAt !== undefined) throw new SimulatedCrash(this.crashedAt);
    this.counts[kind] += 1;
    this.counts.all += 1;
    if (this.counts.all === this.crashAtPoint) {
      this.crashedAt = this.counts.all;
      this.onCrash();
      throw new SimulatedCrash(this.crashedAt);
    }
  }

  private alive(): void {
    if (this.crashedAt !== undefined) throw new SimulatedCrash(this.crashedAt);
  }

  private link(name: string, file: SimFile): void {
    this.names.set(name, file);
    this.pendingDirectory.push({ kind: 'link', name, file });
  }

  async open(file: string, flags: number, _mode?: number): Promise<FileHandlePort> {
    return this.openFile(file, flags);
  }

  async rename(from: string, to: string): Promise<void> {
    this.renameSync(from, to);
  }

  async unlink(file: string): Promise<void> {
    this.unlinkSync(file);
  }

  async readdir(directory: string): Promise<string[]> {
    this.alive();
    return [...this.names.keys()].filter((name) => path.dirname(name) === directory).map((name) => path.basename(name));
  }

  async isRegularFile(file: string): Promise<boolean> {
    this.alive();
    return this.names.has(file);
  }

  async syncDirectory(_directory: string): Promise<void> {
    this.syncDirectoryNow();
  }

  /** openFile is open for both ports: the directory itself opens for its fsync. */
  openFile(file: string, flags: number): SimHandle {
    this.alive();
    if (file === this.directory) return new SimHandle(this, undefined, false);
    let found = this.names.get(file);
    if (found !== undefined && (flags & constants.O_CREAT) !== 0 && (flags & constants.O_EXCL) !== 0) {
      throw Object.assign(new Error(`EEXIST: file already exists, ${file}`), { code: 'EEXIST' });
    }
    if (found === undefined) {
      if ((flags & constants.O_CREAT) === 0) throw enoent(file);
      found = new SimFile();
      this.link(file, found);
    }
    return new SimHandle(this, found, (flags & constants.O_APPEND) !== 0);
  }

  renameSync(from: string, to: string): void {
    this.point('rename');
    const file = this.names.get(from);
    if (file === undefined) throw enoent(from);
    this.names.delete(from);
    this.pendingDirectory.push({ kind: 'unlink', name: from });
    this.link(to, file);
  }

  linkSync(existing: string, created: string): void {
    this.point('rename');
    const file = this.names.get(existing);
    if (file === undefined) throw enoent(existing);
    if (this.names.has(created)) throw Object.assign(new Error(`EEXIST: file already exists, ${created}`), { code: 'EEXIST' });
    this.link(created, file);
  }

  unlinkSync(file: string): void {
    this.alive();
    if (!this.names.delete(file)) throw enoent(file);
    this.pendingDirectory.push({ kind: 'unlink', name: file });
  }

  syncDirectoryNow(): void {
    this.point('fsync');
    this.durableNames = new Map(this.names);
    this.pendingDirectory = [];
  }

  /** handleWrite, handleSync: the crash points of an open file. */
  handleWrite(file: SimFile, bytes: Buffer, position: number): void {
    this.point('write');
    const end = position + bytes.length;
    const data = end > file.data.length ? Buffer.concat([file.data, Buffer.alloc(end - file.data.length)]) : Buffer.from(file.data);
    bytes.copy(data, position);
    file.data = data;
  }

  handleSync(file: SimFile): void {
    this.point('fsync');
    file.durable = Buffer.from(file.data);
  }

  handleTruncate(file: SimFile, length: number): void {
    this.point('write');
    file.data = Buffer.from(file.data.subarray(0, length));
  }

  checkAlive(): void {
    this.alive();
  }
}

/**
 * survivingBytes is what a power loss leaves of a file: its durable bytes, and when what was
 * written since extends them, a prefix of that chosen by the seed (a torn write). A file changed
 * otherwise since its fsync (truncated) keeps its durable bytes.
 */
function survivingBytes(file: SimFile, random: SeededRandom): Buffer {
  const { data, durable } = file;
  if (data.length > durable.length && data.subarray(0, durable.length).equals(durable)) {
    const extra = data.length - durable.length;
    // Half the time nothing unsynced survives; otherwise a random prefix of it.
    const kept = random.int(2) === 0 ? 0 : random.int(extra + 1);
    return Buffer.from(data.subarray(0, durable.length + kept));
  }
  return Buffer.from(durable);
}

import type { Stats } from 'node:fs';
import path from 'node:path';
import { checksumField, encodeFrame, FRAME_PAYLOAD_BYTES_MAX } from './frame.js';
import { readFrames, type FramePosition, type JournalContents } from './journal-read.js';

export { JournalCorruptError, readFrames, type FramePosition, type JournalContents } from './journal-read.js';
import { createIfMissing, OPEN_APPEND, removeAbandonedTemporaries, renameOver, syncDirectory, writeTemporary } from './journal-files.js';
import { nodeFileSystem, type FileHandlePort, type FileSystemPort } from './file-system.js';

/** Which limit a refused record or file exceeded. */
export type JournalLimit = 'record_bytes' | 'file_bytes';

/** JournalLimitError refuses a record or a file beyond the journal's limits; nothing was written. */
export class JournalLimitError extends Error {
  constructor(
    readonly limit: JournalLimit,
    readonly journalPath: string,
  ) {
    super(limit === 'record_bytes' ? `A record is larger than the journal ${journalPath} accepts` : `The journal ${journalPath} has reached its size limit`);
    this.name = 'JournalLimitError';
  }
}

/** The limits of one journal. */
export interface JournalLimits {
  /** No record's payload may be larger than this. */
  recordBytesMax: number;
  /** The file never grows past this: an append that would is refused, and so is a larger file at open. */
  fileBytesMax: number;
  /** compactionDue holds from this size on, once the file is also twice its size after the last compaction. */
  compactionBytesMin: number;
}

/** The longest a record appended with `joinsNext` waits to share another's datasync (docs/decisions.md §41). */
export const JOURNAL_JOIN_NEXT_MS = 100;

/** The sandbox's limits, which never compacts: its journal is its history. */
export const DEFAULT_JOURNAL_LIMITS: JournalLimits = {
  recordBytesMax: FRAME_PAYLOAD_BYTES_MAX,
  fileBytesMax: 1024 * 1024 * 1024,
  compactionBytesMin: 64 * 1024 * 1024,
};

/** How to open a journal. */
export interface JournalOptions {
  limits?: Partial<JournalLimits>;
  /** checkFile sees the open file's stats before anything is read, and throws to refuse it. */
  checkFile?: (stats: Stats) => void;
  /**
   * readContents reads the records from the open file; by default every frame from the start. The
   * sandbox resumes after the frame its snapshot covers (sandbox/ledger/journal-resume.ts).
   */
  readContents?: (handle: FileHandlePort, sizeBytes: number, journalPath: string) => Promise<{ from: number; bytes: Buffer; contents: JournalContents }>;
  /** Where every file operation goes: the real file system, or the crash simulator's (test/simulation/). */
  files?: FileSystemPort;
}



type QueueItem =
  | { kind: 'append'; frame: Uint8Array; resolve: () => void; reject: (error: unknown) => void; joinsNext?: boolean }
  | { kind: 'compact'; bytes: Buffer; resolve: () => void; reject: (error: unknown) => void };

/**
 * Journal is an append-only file of framed records, each fsynced before its append resolves.
 * Opening it reads every intact record; a torn or damaged LAST record (a crash mid-write) is
 * dropped and the file truncated to the last good record, while damage followed by intact records
 * refuses with JournalCorruptError. A compaction atomically replaces the file with the records
 * still live, so that a journal whose records expire does not grow forever.
 */
export class Journal {
  private queue: QueueItem[] = [];
  private flushing: Promise<void> | undefined;
  /** Queued records appended with joinsNext: they wait for another record's write, or joinTimer, or close. */
  private joining = 0;
  private joinTimer: NodeJS.Timeout | undefined;
  private forced = false;
  private broken: unknown;
  /** The file's size once everything queued so far is written. */
  private projectedBytes: number;
  /** The file's size after the last compaction (or at open), the base of compactionDue. */
  private compactedBytes: number;
  /** The last frame queued so far, for a snapshot to name what it covers. */
  private tailFrame: FramePosition | undefined;

  /** How many records were queued since open (the store's snapshot check compares it with what it applied). */
  private appendedCount = 0;

  private constructor(
    private handle: FileHandlePort,
    private readonly files: FileSystemPort,
    readonly journalPath: string,
    readonly limits: JournalLimits,
    sizeBytes: number,
    lastFrame: FramePosition | undefined,
  ) {
    this.projectedBytes = sizeBytes;
    this.compactedBytes = sizeBytes;
    this.tailFrame = lastFrame;
  }

  /** open reads, repairs and opens the journal at journalPath for appending, creating it (O_EXCL, 0600) if absent. */
  static async open(journalPath: string, options: JournalOptions = {}): Promise<{ journal: Journal; contents: JournalContents }> {
    const limits = { ...DEFAULT_JOURNAL_LIMITS, ...options.limits };
    const files = options.files ?? nodeFileSystem;
    const created = await createIfMissing(journalPath, files);
    const handle = await files.open(journalPath, OPEN_APPEND);
    try {
      const stats = await handle.stat();
      options.checkFile?.(stats);
      if (stats.size > limits.fileBytesMax) throw new JournalLimitError('file_bytes', journalPath);
      const { from, bytes, contents } = await (options.readContents ?? readWhole)(handle, stats.size, journalPath);
      const sizeBytes = from + bytes.length - contents.droppedBytes;
      if (contents.droppedBytes > 0) {
        await handle.truncate(sizeBytes);
        await handle.sync();
      }
      if (created) await syncDirectory(path.dirname(journalPath), files);
      await removeAbandonedTemporaries(journalPath, files);
      return { journal: new Journal(handle, files, journalPath, limits, sizeBytes, contents.lastFrame), contents };
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  /**
   * append queues one record and resolves once it is on stable storage. Records queued while a
   * write is on its way to the disk are written together by the next one, with one datasync
   * (group commit); order is kept, so what is durable is always a prefix of what was appended.
   * After a failed write nothing more is written: every later record is refused. A record beyond
   * the limits is refused with JournalLimitError and leaves the journal usable.
   */
  append(payload: Uint8Array, options: { joinsNext?: boolean } = {}): Promise<void> {
    if (payload.byteLength > this.limits.recordBytesMax) return Promise.reject(new JournalLimitError('record_bytes', this.journalPath));
    const frame = encodeFrame(payload);
    if (this.projectedBytes + frame.byteLength > this.limits.fileBytesMax) return Promise.reject(new JournalLimitError('file_bytes', this.journalPath));
    return this.enqueue((resolve, reject) => {
      this.appendedCount += 1;
      this.tailFrame = { offset: this.projectedBytes, checksum: checksumField(frame) };
      this.projectedBytes += frame.byteLength;
      return { kind: 'append', frame, resolve, reject, ...(options.joinsNext === true && { joinsNext: true }) };
    });
  }

  /** synced resolves once every record appended so far is on stable storage. */
  synced(): Promise<void> {
    if (this.queue.length === 0 && this.flushing === undefined) return this.broken === undefined ? Promise.resolve() : Promise.reject(this.broken);
    return this.enqueue((resolve, reject) => ({ kind: 'append', frame: new Uint8Array(0), resolve, reject }));
  }

  /** appended counts the records queued since open (a refused one is not counted). */
  get appended(): number {
    return this.appendedCount;
  }

  /** lastFrame is the position of the last record queued so far: undefined while the journal is empty, or after a failed compaction. */
  get lastFrame(): FramePosition | undefined {
    return this.tailFrame;
  }

  /** compactionDue reports whether the file has grown enough since the last compaction to be worth one. */
  compactionDue(): boolean {
    return this.projectedBytes >= Math.max(this.limits.compactionBytesMin, 2 * this.compactedBytes);
  }

  /**
   * compact replaces the file with exactly the given records, the live ones, which the caller
   * takes at the moment it calls: records appended before the call are written (and then
   * superseded) first, records appended after it go into the new file. The new file is written
   * beside the old one (O_EXCL, 0600), fsynced and renamed over it, and the directory fsynced, so
   * a crash leaves the old file or the new one. A failure before the rename leaves the journal as
   * it was and usable; a failure after it breaks the journal like a failed write.
   */
  compact(livePayloads: readonly Uint8Array[]): Promise<void> {
    for (const payload of livePayloads) {
      if (payload.byteLength > this.limits.recordBytesMax) return Promise.reject(new JournalLimitError('record_bytes', this.journalPath));
    }
    const frames = livePayloads.map((payload) => encodeFrame(payload));
    const bytes = Buffer.concat(frames);
    if (bytes.byteLength > this.limits.fileBytesMax) return Promise.reject(new JournalLimitError('file_bytes', this.journalPath));
    return this.enqueue((resolve, reject) => {
      const before = this.projectedBytes;
      const last = frames[frames.length - 1];
      this.tailFrame = last === undefined ? undefined : { offset: bytes.byteLength - last.byteLength, checksum: checksumField(last) };
      this.projectedBytes = bytes.byteLength;
      return {
        kind: 'compact',
        bytes,
        resolve: () => {
          this.compactedBytes = bytes.byteLength;
          resolve();
        },
        reject: (error) => {
          // The old file stays; what was queued behind the compaction is appended to it.
          this.projectedBytes += before - bytes.byteLength;
          // Where the frames queued behind it landed is no longer known; no snapshot names them.
          this.tailFrame = undefined;
          reject(error);
        },
      };
    });
  }

  private enqueue(make: (resolve: () => void, reject: (error: unknown) => void) => QueueItem): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (this.broken !== undefined) return reject(this.broken);
      const item = make(resolve, reject);
      this.queue.push(item);
      if (item.kind === 'append' && item.joinsNext === true) this.joining += 1;
      if (this.writeDue()) this.flushing ??= this.flush();
      if (this.joining > 0) this.joinTimer ??= setTimeout(() => void this.writeNow(), JOURNAL_JOIN_NEXT_MS);
    });
  }

  /** writeDue: a queued record needs a write (those appended with joinsNext wait for another, or their timer, armed even behind a compaction: §45). */
  private writeDue(): boolean {
    return this.forced || this.queue.length > this.joining;
  }

  /** writeNow writes everything queued, records appended with joinsNext included. */
  private writeNow(): Promise<void> {
    clearTimeout(this.joinTimer);
    this.joinTimer = undefined;
    this.forced = this.queue.length > 0;
    if (this.forced) this.flushing ??= this.flush();
    return this.flushing ?? Promise.resolve();
  }

  private async flush(): Promise<void> {
    try {
      while (this.queue.length > 0 && this.writeDue()) {
        const head = this.queue[0] as QueueItem;
        if (head.kind === 'compact') {
          this.queue.shift();
          await this.runCompaction(head);
          continue;
        }
        const barrier = this.queue.findIndex((item) => item.kind === 'compact');
        const batch = this.queue.splice(0, barrier === -1 ? this.queue.length : barrier) as Array<Extract<QueueItem, { kind: 'append' }>>;
        this.joining -= batch.filter((item) => item.joinsNext === true).length;
        try {
          if (this.broken !== undefined) throw this.broken;
          const bytes = Buffer.concat(batch.map((item) => item.frame));
          await writeAll(this.handle, bytes);
          if (bytes.length > 0) await this.handle.datasync();
          for (const item of batch) item.resolve();
        } catch (error) {
          this.broken ??= error;
          for (const item of batch) item.reject(error);
        }
      }
    } finally {
      this.flushing = undefined;
      if (this.queue.length === 0) this.writeNow(); // else: records that wait for another write, or their timer
    }
  }

  private async runCompaction(item: Extract<QueueItem, { kind: 'compact' }>): Promise<void> {
    if (this.broken !== undefined) return item.reject(this.broken);
    let temporary: string;
    try {
      temporary = await writeTemporary(this.journalPath, [item.bytes], this.files);
      await renameOver(temporary, this.journalPath, this.files);
    } catch (error) {
      return item.reject(error);
    }
    try {
      // The old handle now writes to an unlinked file; appends must go to the new one.
      const replaced = this.handle;
      this.handle = await this.files.open(this.journalPath, OPEN_APPEND);
      await replaced.close();
      await syncDirectory(path.dirname(this.journalPath), this.files);
      item.resolve();
    } catch (error) {
      this.broken ??= error;
      item.reject(error);
    }
  }

  /** close writes what is queued (records that wait for another write too) and closes the file; appending afterwards fails. */
  async close(): Promise<void> {
    await this.writeNow();
    this.broken ??= new Error(`the journal ${this.journalPath} is closed`);
    await this.handle.close();
  }
}

async function writeAll(handle: FileHandlePort, bytes: Buffer): Promise<void> {
  let written = 0;
  while (written < bytes.length) {
    const { bytesWritten } = await handle.write(bytes, written, bytes.length - written);
    written += bytesWritten;
  }
}

/** readWhole reads every frame of the file from its start. */
async function readWhole(handle: FileHandlePort, _sizeBytes: number, journalPath: string): Promise<{ from: number; bytes: Buffer; contents: JournalContents }> {
  const bytes = await handle.readFile();
  return { from: 0, bytes, contents: readFrames(bytes, journalPath) };
}

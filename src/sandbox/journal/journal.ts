import { constants, promises as fs } from 'node:fs';
import path from 'node:path';
import { decodeFrameAt, encodeFrame, intactFrameAfter } from './frame.js';

/** JournalCorruptError means damage before the last record: the sandbox refuses to start. */
export class JournalCorruptError extends Error {
  constructor(
    readonly journalPath: string,
    readonly offset: number,
  ) {
    super(
      `The sandbox journal ${journalPath} is damaged at byte ${offset}, before its last record. ` +
        'Refusing to start, because replaying past the damage would lose acknowledged changes. ' +
        'Restore the file from a backup, or move it aside to start an empty sandbox.',
    );
    this.name = 'JournalCorruptError';
  }
}

/** What opening a journal found. */
export interface JournalContents {
  /** The payloads of the intact records, in order. */
  payloads: Buffer[];
  /** Bytes of a torn last record that were dropped and truncated away (0 when the file was clean). */
  droppedBytes: number;
}

/**
 * Journal is the sandbox's append-only file: one framed record per committed change, fsynced
 * before the change is acknowledged. Opening it reads every intact record; a torn or damaged
 * LAST record (a crash mid-write) is dropped and the file truncated to the last good record,
 * while damage followed by intact records refuses with JournalCorruptError.
 */
export class Journal {
  private constructor(
    private readonly handle: fs.FileHandle,
    readonly journalPath: string,
  ) {}

  /** open reads, repairs and opens the journal at journalPath for appending, creating it (0600) if absent. */
  static async open(journalPath: string): Promise<{ journal: Journal; contents: JournalContents }> {
    const created = await createIfMissing(journalPath);
    const bytes = await fs.readFile(journalPath);
    const contents = readFrames(bytes, journalPath);
    const handle = await fs.open(journalPath, constants.O_RDWR | constants.O_APPEND | constants.O_NOFOLLOW);
    try {
      if (contents.droppedBytes > 0) {
        await handle.truncate(bytes.length - contents.droppedBytes);
        await handle.sync();
      }
      if (created) await syncDirectory(path.dirname(journalPath));
    } catch (error) {
      await handle.close();
      throw error;
    }
    return { journal: new Journal(handle, journalPath), contents };
  }

  private queue: Array<{ frame: Uint8Array; resolve: () => void; reject: (error: unknown) => void }> = [];
  private flushing: Promise<void> | undefined;
  private broken: unknown;

  /**
   * append queues one record and resolves once it is on stable storage. Records queued while a
   * write is on its way to the disk are written together by the next one, with one datasync
   * (group commit); order is kept, so what is durable is always a prefix of what was appended.
   * After a failed write nothing more is written: every later record is refused.
   */
  append(payload: Uint8Array): Promise<void> {
    return this.enqueue(encodeFrame(payload));
  }

  /** synced resolves once every record appended so far is on stable storage. */
  synced(): Promise<void> {
    if (this.queue.length === 0 && this.flushing === undefined) return this.broken === undefined ? Promise.resolve() : Promise.reject(this.broken);
    return this.enqueue(new Uint8Array(0));
  }

  private enqueue(frame: Uint8Array): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (this.broken !== undefined) return reject(this.broken);
      this.queue.push({ frame, resolve, reject });
      this.flushing ??= this.flush();
    });
  }

  private async flush(): Promise<void> {
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, this.queue.length);
        try {
          if (this.broken !== undefined) throw this.broken;
          const bytes = Buffer.concat(batch.map((item) => item.frame));
          let written = 0;
          while (written < bytes.length) {
            const { bytesWritten } = await this.handle.write(bytes, written, bytes.length - written);
            written += bytesWritten;
          }
          if (bytes.length > 0) await this.handle.datasync();
          for (const item of batch) item.resolve();
        } catch (error) {
          this.broken ??= error;
          for (const item of batch) item.reject(error);
        }
      }
    } finally {
      this.flushing = undefined;
    }
  }

  /** close closes the file; appending afterwards fails. */
  async close(): Promise<void> {
    await this.flushing;
    await this.handle.close();
  }
}

/** readFrames splits journal bytes into intact payloads and a droppable torn tail. */
export function readFrames(bytes: Buffer, journalPath: string): JournalContents {
  const payloads: Buffer[] = [];
  let offset = 0;
  while (offset < bytes.length) {
    const frame = decodeFrameAt(bytes, offset);
    if (frame === undefined) {
      if (intactFrameAfter(bytes, offset)) throw new JournalCorruptError(journalPath, offset);
      return { payloads, droppedBytes: bytes.length - offset };
    }
    payloads.push(frame.payload);
    offset = frame.end;
  }
  return { payloads, droppedBytes: 0 };
}

async function createIfMissing(journalPath: string): Promise<boolean> {
  try {
    const handle = await fs.open(journalPath, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
    await handle.sync();
    await handle.close();
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

async function syncDirectory(directory: string): Promise<void> {
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
}

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

  /** append writes one record and waits until it is on stable storage. */
  async append(payload: Uint8Array): Promise<void> {
    const frame = encodeFrame(payload);
    let written = 0;
    while (written < frame.length) {
      const { bytesWritten } = await this.handle.write(frame, written, frame.length - written);
      written += bytesWritten;
    }
    await this.handle.datasync();
  }

  /** close closes the file; appending afterwards fails. */
  async close(): Promise<void> {
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

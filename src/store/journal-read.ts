import type { promises as fs } from 'node:fs';
import { checksumField, decodeFrameAt, intactFrameAfter } from './frame.js';

/**
 * Reading a journal's records at open: every intact frame in order, a torn last frame told apart
 * from damage before the last record, and a read that resumes after one known frame (the last a
 * snapshot covers) instead of reading the whole file.
 */

/** JournalCorruptError means damage before the last record: the owner refuses to start. */
export class JournalCorruptError extends Error {
  constructor(
    readonly journalPath: string,
    readonly offset: number,
  ) {
    super(
      `The journal ${journalPath} is damaged at byte ${offset}, before its last record. ` +
        'Refusing to start, because replaying past the damage would lose acknowledged changes. ' +
        'Restore the file from a backup, or move it aside to start empty.',
    );
    this.name = 'JournalCorruptError';
  }
}

/**
 * JournalResumeError means the journal does not continue from the given frame (a snapshot of an
 * older or another journal): nothing was read past it, and the caller replays the whole file.
 */
export class JournalResumeError extends Error {
  constructor(
    readonly journalPath: string,
    readonly offset: number,
  ) {
    super(`The journal ${journalPath} does not hold the expected record at byte ${offset}`);
    this.name = 'JournalResumeError';
  }
}

/** Where one frame starts and the checksum field its header carries (CRC-32 or, in an old frame, SHA-256), which names its payload. */
export interface FramePosition {
  offset: number;
  checksum: Buffer;
}

/** What opening a journal found. */
export interface JournalContents {
  /** The payloads of the intact records, in order. */
  payloads: Buffer[];
  /** Bytes of a torn last record that were dropped and truncated away (0 when the file was clean). */
  droppedBytes: number;
  /** The last intact frame read (with resumeAfter, that frame when nothing follows it), or undefined for an empty file. */
  lastFrame?: FramePosition;
}

/** readFrames splits journal bytes into intact payloads and a droppable torn tail. */
export function readFrames(bytes: Buffer, journalPath: string, baseOffset = 0): JournalContents {
  const payloads: Buffer[] = [];
  let offset = 0;
  let lastOffset = -1;
  // The checksum is copied so that it does not keep the whole file's buffer alive.
  const finish = (droppedBytes: number): JournalContents => ({
    payloads,
    droppedBytes,
    ...(lastOffset >= 0 && { lastFrame: { offset: baseOffset + lastOffset, checksum: Buffer.from(checksumField(bytes, lastOffset)) } }),
  });
  while (offset < bytes.length) {
    const frame = decodeFrameAt(bytes, offset);
    if (frame === undefined) {
      if (intactFrameAfter(bytes, offset)) throw new JournalCorruptError(journalPath, baseOffset + offset);
      return finish(bytes.length - offset);
    }
    payloads.push(frame.payload);
    lastOffset = offset;
    offset = frame.end;
  }
  return finish(0);
}

/** resumeFrames checks that bytes (read from resume.offset) start with the expected frame and reads the frames after it. */
export function resumeFrames(bytes: Buffer, journalPath: string, resume: FramePosition): JournalContents {
  const first = decodeFrameAt(bytes, 0);
  if (first === undefined || !checksumField(bytes).equals(resume.checksum)) throw new JournalResumeError(journalPath, resume.offset);
  const rest = readFrames(bytes.subarray(first.end), journalPath, resume.offset + first.end);
  return { payloads: rest.payloads, droppedBytes: rest.droppedBytes, lastFrame: rest.lastFrame ?? { offset: resume.offset, checksum: Buffer.from(resume.checksum) } };
}

/** readFrom reads the file from offset to its end, or throws JournalResumeError when it is shorter. */
export async function readFrom(handle: fs.FileHandle, offset: number, sizeBytes: number, journalPath: string): Promise<Buffer> {
  if (!Number.isSafeInteger(offset) || offset < 0 || offset >= sizeBytes) throw new JournalResumeError(journalPath, offset);
  const bytes = Buffer.alloc(sizeBytes - offset);
  let read = 0;
  while (read < bytes.length) {
    const { bytesRead } = await handle.read(bytes, read, bytes.length - read, offset + read);
    if (bytesRead === 0) break;
    read += bytesRead;
  }
  return bytes.subarray(0, read);
}

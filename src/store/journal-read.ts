import { checksumField, decodeFrameAt, intactFrameAfter } from './frame.js';

/**
 * Reading a journal's records at open: every intact frame in order, and a torn last frame told
 * apart from damage before the last record. (The sandbox can resume after one known frame:
 * sandbox/ledger/journal-resume.ts.)
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
  /** The last intact frame read (after a resumed read, the frame resumed after when nothing follows it), or undefined for an empty file. */
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

/**
 * Resuming a journal after the last record a snapshot covers, instead of reading the whole file
 * (the sandbox's fast start, docs/decisions.md §16.5). The daemon's state.journal is always read
 * whole; this is the sandbox's reader for Journal.open's `readContents`.
 */
import type { FileHandlePort } from '../../store/file-system.js';
import { checksumField, decodeFrameAt } from '../../store/frame.js';
import { readFrames, type FramePosition, type JournalContents } from '../../store/journal-read.js';

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

/**
 * resumeAfter is the `readContents` of Journal.open that reads only what follows one known record:
 * the frame at `resume.offset` must be intact and carry `resume.checksum`, or it throws
 * JournalResumeError (nothing read past it). Damage before that frame is found only by a full open.
 */
export function resumeAfter(resume: FramePosition) {
  return async (handle: FileHandlePort, sizeBytes: number, journalPath: string): Promise<{ from: number; bytes: Buffer; contents: JournalContents }> => {
    const bytes = await readFrom(handle, resume.offset, sizeBytes, journalPath);
    return { from: resume.offset, bytes, contents: resumeFrames(bytes, journalPath, resume) };
  };
}

/** resumeFrames checks that bytes (read from resume.offset) start with the expected frame and reads the frames after it. */
function resumeFrames(bytes: Buffer, journalPath: string, resume: FramePosition): JournalContents {
  const first = decodeFrameAt(bytes, 0);
  if (first === undefined || !checksumField(bytes).equals(resume.checksum)) throw new JournalResumeError(journalPath, resume.offset);
  const rest = readFrames(bytes.subarray(first.end), journalPath, resume.offset + first.end);
  return { payloads: rest.payloads, droppedBytes: rest.droppedBytes, lastFrame: rest.lastFrame ?? { offset: resume.offset, checksum: Buffer.from(resume.checksum) } };
}

/** readFrom reads the file from offset to its end, or throws JournalResumeError when it is shorter. */
async function readFrom(handle: FileHandlePort, offset: number, sizeBytes: number, journalPath: string): Promise<Buffer> {
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

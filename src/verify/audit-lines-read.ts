/**
 * Reading audit.log line by line from its start, for the verifier and the readers (`latch audit`,
 * GET /audit). The appender reads only the last line (datadir/audit-log.ts, readTail).
 */

import { syncFiles } from '../store/file-system.js';
import { AUDIT_LINE_BYTES_MAX } from '../datadir/audit-lines.js';

/**
 * One line of audit.log as stored: its exact bytes (without the newline) and where it ends. The
 * bytes may be a view of the reader's buffer: they are valid until the reader moves on, so a
 * caller that keeps them copies them.
 */
export interface AuditLine {
  /** 1-based line number. */
  number: number;
  /** The line's bytes, without the trailing newline; empty when tooLong. */
  bytes: Buffer;
  /** Whether the line ended with a newline (only the last line of a torn write does not). */
  complete: boolean;
  /** Whether the line exceeded the limit; its bytes are then not kept. */
  tooLong: boolean;
}

const CHUNK_BYTES = 1024 * 1024;
const NEWLINE = 0x0a;

/**
 * readAuditLines yields the lines of an open audit.log from the start, reading fixed-size chunks
 * so that memory stays bounded however long the log grows. A line inside one chunk is yielded as
 * a view of it (no copy); only a line that spans two reads is put together in a buffer of its own.
 */
export function* readAuditLines(fd: number): Generator<AuditLine> {
  const chunk = Buffer.alloc(CHUNK_BYTES);
  // The start of a line that began in an earlier chunk (copied, since the chunk is reused).
  let carried: Buffer[] = [];
  let carriedBytes = 0;
  let tooLong = false;
  let number = 0;
  let position = 0;
  for (;;) {
    const read = syncFiles().readSync(fd, chunk, 0, CHUNK_BYTES, position);
    if (read === 0) break;
    position += read;
    let start = 0;
    for (let index = chunk.indexOf(NEWLINE, start); index !== -1 && index < read; index = chunk.indexOf(NEWLINE, start)) {
      const length = carriedBytes + index - start;
      number += 1;
      if (tooLong || length > AUDIT_LINE_BYTES_MAX) yield { number, bytes: Buffer.alloc(0), complete: true, tooLong: true };
      else yield { number, bytes: carriedBytes === 0 ? chunk.subarray(start, index) : Buffer.concat([...carried, chunk.subarray(start, index)]), complete: true, tooLong: false };
      carried = [];
      carriedBytes = 0;
      tooLong = false;
      start = index + 1;
    }
    if (start < read && !tooLong) {
      carriedBytes += read - start;
      if (carriedBytes > AUDIT_LINE_BYTES_MAX) {
        tooLong = true;
        carried = [];
      } else {
        carried.push(Buffer.from(chunk.subarray(start, read)));
      }
    }
  }
  if (carriedBytes > 0 || tooLong) {
    number += 1;
    yield { number, bytes: tooLong ? Buffer.alloc(0) : Buffer.concat(carried), complete: false, tooLong };
  }
}

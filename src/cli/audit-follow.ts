/**
 * `latch audit --follow`: after the latest lines, every line the daemon appends to audit.log, as it
 * is appended, until stopped (like `stripe logs tail`). It reads only what was added since the last
 * look, so a long log costs nothing per poll; the data-file checks apply at every open.
 */
import { closeSync, constants, readSync } from 'node:fs';
import type { AuditRecord } from '../datadir/audit-entry.js';
import { auditLogPath, parseRecord } from '../datadir/audit-log.js';
import { openPrivateFile } from '../datadir/read-private-file.js';

/** How often audit.log is looked at for new lines. */
export const AUDIT_FOLLOW_POLL_MS = 250;
/** The most bytes one look reads; the rest waits for the next look. */
const READ_BYTES_MAX = 1024 * 1024;

/** auditSize is the size of audit.log now (0 when there is none yet). */
export function auditSize(home: string): number {
  const opened = openPrivateFile(auditLogPath(home), constants.O_RDONLY);
  if (opened === undefined) return 0;
  closeSync(opened.fd);
  return opened.stats.size;
}

/**
 * followAudit calls emit for every record appended after byte `from`, in order, until stop
 * aborts. A log that shrank (replaced, restored) is read again from its start.
 */
export async function followAudit(home: string, from: number, emit: (record: AuditRecord) => void, stop: AbortSignal): Promise<void> {
  let offset = from;
  let partial = Buffer.alloc(0);
  while (!stop.aborted) {
    const opened = openPrivateFile(auditLogPath(home), constants.O_RDONLY);
    if (opened !== undefined) {
      try {
        if (opened.stats.size < offset) {
          offset = 0;
          partial = Buffer.alloc(0);
        }
        const length = Math.min(opened.stats.size - offset, READ_BYTES_MAX);
        if (length > 0) {
          const chunk = Buffer.alloc(length);
          const read = readSync(opened.fd, chunk, 0, length, offset);
          offset += read;
          partial = Buffer.concat([partial, chunk.subarray(0, read)]);
          let newline = partial.indexOf(0x0a);
          while (newline !== -1) {
            const record = parseRecord(partial.subarray(0, newline));
            // A line that is no record is `latch audit verify`'s business; following goes on.
            if (record !== undefined) emit(record);
            partial = partial.subarray(newline + 1);
            newline = partial.indexOf(0x0a);
          }
        }
      } finally {
        closeSync(opened.fd);
      }
    }
    await sleep(AUDIT_FOLLOW_POLL_MS, stop);
  }
}

function sleep(ms: number, stop: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      stop.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    stop.addEventListener('abort', done, { once: true });
  });
}

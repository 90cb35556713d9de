import { syncFiles } from '../store/file-system.js';
import { constants } from 'node:fs';
import { AUDIT_ANCHOR_RECORD, parseAnchor, type AuditAnchor } from '../datadir/audit-anchor-rule.js';
import { DataDirError } from '../datadir/data-dir-error.js';
import { DATA_FILES, dataFilePath } from '../datadir/home.js';
import { openPrivateFile } from '../datadir/read-private-file.js';
import { readFrames } from '../store/journal-read.js';

/**
 * readJournalAnchor reads the latest anchor from state.journal without opening it for writing
 * (for `latch audit verify`, which may run beside the daemon); undefined when there is none.
 */
export function readJournalAnchor(home: string): AuditAnchor | undefined {
  const file = dataFilePath(home, DATA_FILES.stateJournal);
  const opened = openPrivateFile(file, constants.O_RDONLY);
  if (opened === undefined) return undefined;
  let bytes: Buffer;
  try {
    const size = syncFiles().fstatSync(opened.fd).size;
    bytes = Buffer.alloc(size);
    let read = 0;
    while (read < size) {
      const count = syncFiles().readSync(opened.fd, bytes, read, size - read, read);
      if (count === 0) break;
      read += count;
    }
    bytes = bytes.subarray(0, read);
  } finally {
    syncFiles().closeSync(opened.fd);
  }
  let latest: AuditAnchor | undefined;
  let payloads: Buffer[];
  try {
    payloads = readFrames(bytes, file).payloads;
  } catch {
    throw new DataDirError('corrupt', file, 'state.journal is damaged before its last record, so the audit anchor it holds cannot be read', 'start the daemon, which reports the damage and what to do');
  }
  for (const payload of payloads) {
    let record: { type?: unknown; seq?: unknown; hash?: unknown };
    try {
      record = JSON.parse(payload.toString('utf8')) as typeof record;
    } catch {
      continue;
    }
    if (record === null || typeof record !== 'object' || record.type !== AUDIT_ANCHOR_RECORD) continue;
    const anchor = parseAnchor(record);
    if (anchor !== undefined && (latest === undefined || anchor.seq >= latest.seq)) latest = anchor;
  }
  return latest;
}

/**
 * Reading audit.log and audit.head for people and tools: `latch audit`, the console's activity,
 * `GET /audit`, the tests. The daemon appends (datadir/audit-log.ts) and never decides on what is
 * read here.
 */
import { syncFiles } from '../store/file-system.js';
import { constants } from 'node:fs';
import type { AuditRecord } from '../datadir/audit-entry.js';
import { auditLogPath, corruptLog, parseRecord, readAuditHeadState, type AuditHead } from '../datadir/audit-log.js';
import { readAuditLines } from './audit-lines-read.js';
import { openPrivateFile } from '../datadir/read-private-file.js';

/**
 * readAudit returns the records of audit.log in order (the last `limit` of them when given, of
 * those `filter` keeps when given). It reads but does not verify the chain (verifyAudit does),
 * and throws a DataDirError on a line that is not a JSON object.
 */
export function readAudit(home: string, options: { limit?: number; filter?: (record: AuditRecord) => boolean } = {}): AuditRecord[] {
  const file = auditLogPath(home);
  const opened = openPrivateFile(file, constants.O_RDONLY);
  if (opened === undefined) return [];
  const limit = options.limit ?? Number.POSITIVE_INFINITY;
  const records: AuditRecord[] = [];
  try {
    for (const line of readAuditLines(opened.fd)) {
      const record = line.tooLong ? undefined : parseRecord(line.bytes);
      if (record === undefined) throw corruptLog(file, `line ${line.number} of audit.log is not a valid record`);
      if (options.filter !== undefined && !options.filter(record)) continue;
      records.push(record);
      if (records.length > limit) records.shift();
    }
  } finally {
    syncFiles().closeSync(opened.fd);
  }
  return records;
}

/** readAuditHead returns audit.head, or undefined when there is none; a malformed head is a DataDirError. */
export function readAuditHead(home: string): AuditHead | undefined {
  return readAuditHeadState(home)?.head;
}

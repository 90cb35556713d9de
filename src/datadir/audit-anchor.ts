/**
 * The audit chain's anchor (docs/decisions.md §20). audit.head shows that the last lines of
 * audit.log were removed, but not that both files were: `rm audit.log audit.head` used to give a
 * new chain that verified. Two facts kept outside those files say a record existed:
 *
 * - config.json naming a device: enrollment is itself a signature, audited before config.json is
 *   written, so an enrolled device's log has at least one line;
 * - the `audit_anchor` record in state.journal: the seq and hash of a line the daemon saw written
 *   (at each start, and after its appends), so the log must reach that line, unchanged.
 *
 * A log that is missing, empty, shorter than the anchor or different at the anchored line is
 * refused: nothing is signed and `latch audit verify` fails. While a daemon runs, its appenders
 * also refuse a log that ends before the anchor it recorded (audit-anchor-rule.ts). Neither fact is keyed: a process
 * running as the user can rewrite config.json and state.journal too (SECURITY.md says so).
 */
import { closeSync, constants, fstatSync, readSync } from 'node:fs';
import { readFrames } from '../store/journal-read.js';
import { AUDIT_ANCHOR_RECORD, anchorProblem, parseAnchor, raiseAuditFloor, unanchored, type AuditAnchor } from './audit-anchor-rule.js';
import { assertAuditAppendable, auditLogPath, hashOfLineBefore, readTail, type Tail } from './audit-log.js';
import { GENESIS_HASH } from './audit-lines.js';
import { loadConfig } from './config.js';
import { DataDirError } from './data-dir-error.js';
import { DATA_FILES, dataFilePath } from './home.js';
import { openPrivateFile } from './read-private-file.js';

export { AUDIT_ANCHOR_RECORD, anchorProblem, parseAnchor, raiseAuditFloor, type AuditAnchor };

/**
 * assertAuditAnchored checks, at the daemon's start, that audit.log ends with a whole line that
 * matches audit.head and reaches its anchors (config.json's enrollment, state.journal's anchor).
 * It returns where the log ends, the next anchor. A DataDirError names the file and the fix.
 */
export function assertAuditAnchored(home: string, anchor: AuditAnchor | undefined): Tail {
  assertAuditAppendable(home);
  const file = auditLogPath(home);
  const enrolled = loadConfig(home).device_id;
  const opened = openPrivateFile(file, constants.O_RDONLY);
  try {
    const size = opened?.stats.size ?? 0;
    const tail: Tail = opened === undefined ? { seq: 0, hash: GENESIS_HASH, prev: undefined } : readTail(opened.fd, size, file);
    const problem = anchorProblem(tail.seq, enrolled, anchor, (seq) => (seq === tail.seq ? tail.hash : opened === undefined ? undefined : hashOfLineBefore(opened.fd, size, tail.seq - seq)));
    if (problem !== undefined) throw unanchored(home, problem);
    return tail;
  } finally {
    if (opened !== undefined) closeSync(opened.fd);
  }
}

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
    const size = fstatSync(opened.fd).size;
    bytes = Buffer.alloc(size);
    let read = 0;
    while (read < size) {
      const count = readSync(opened.fd, bytes, read, size - read, read);
      if (count === 0) break;
      read += count;
    }
    bytes = bytes.subarray(0, read);
  } finally {
    closeSync(opened.fd);
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

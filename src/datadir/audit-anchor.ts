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
import { syncFiles } from '../store/file-system.js';
import { constants } from 'node:fs';
import { AUDIT_ANCHOR_RECORD, anchorProblem, parseAnchor, raiseAuditFloor, unanchored, type AuditAnchor } from './audit-anchor-rule.js';
import { assertAuditAppendable, auditLogPath, hashOfLineBefore, readTail, type Tail } from './audit-log.js';
import { GENESIS_HASH } from './audit-lines.js';
import { loadConfig } from './config.js';
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
    if (opened !== undefined) syncFiles().closeSync(opened.fd);
  }
}

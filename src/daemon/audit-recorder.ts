/**
 * The daemon's one way to write audit.log: every signature, outcome and owner action goes through
 * `append`, which moves the audit anchor forward once the line is on disk (docs/decisions.md §20).
 */
import type { AuditAppendResult } from '../datadir/audit-log.js';
import { AUDIT_RESERVATION_HOLD_MS, sharedAuditWriter } from '../datadir/audit-writer.js';
import type { AuditEntry } from '../datadir/audit-entry.js';
import { DataDirError } from '../datadir/data-dir-error.js';
import { auditAnchorKeeper, type AuditAnchorKeeper } from './audit-anchor-keeper.js';
import type { DaemonServices } from './services.js';

/** AuditRecorder appends to one daemon's audit.log and keeps its anchor. */
export interface AuditRecorder {
  /** The audit chain's anchor in state.journal: confirmed at start, moved forward by every append. */
  anchor: AuditAnchorKeeper;
  /**
   * append appends to audit.log or throws, so that nothing is signed unrecorded. When the log is
   * damaged or unsafe, the caller gets 503 data_directory_unavailable; the operator's log says which
   * file and what to do, since the DataDirError's message names both.
   */
  append(entry: AuditEntry): Promise<AuditAppendResult>;
  /**
   * appendLater appends a line no answer waits for (an authorization's outcome): it joins the
   * next commit instead of paying an fdatasync of its own (docs/decisions.md §41).
   */
  appendLater(entry: AuditEntry): Promise<AuditAppendResult>;
}

/** auditRecorder makes the recorder of one daemon's data directory. */
export function auditRecorder(services: DaemonServices): AuditRecorder {
  const writer = sharedAuditWriter(services.home);
  // The daemon appends all the time: audit.head keeps its reservation between bursts (§41).
  writer.holdReservation(AUDIT_RESERVATION_HOLD_MS);
  const anchor = auditAnchorKeeper(services.home, services.stateStore, (event, fields) => services.logger.warn(event, fields));
  const recorded = async (entry: AuditEntry, deferred: boolean): Promise<AuditAppendResult> => {
    try {
      const appended = await (deferred ? writer.appendDeferred(entry) : writer.append(entry));
      // The line is on disk: the log must reach it from now on (docs/decisions.md §20).
      anchor.note({ seq: appended.record.seq, hash: appended.hash });
      return appended;
    } catch (error) {
      if (error instanceof DataDirError) services.logger.error('audit_append_refused', { reason: error.code, detail: error.message });
      throw error;
    }
  };
  return { anchor, append: (entry) => recorded(entry, false), appendLater: (entry) => recorded(entry, true) };
}

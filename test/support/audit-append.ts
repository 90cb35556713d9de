import type { AuditEntry } from '../../src/datadir/audit-entry.js';
import type { AuditAppendResult } from '../../src/datadir/audit-log.js';
import { sharedAuditWriter } from '../../src/datadir/audit-writer.js';

/**
 * appendAudit appends one entry through this process's real writer (sharedAuditWriter, as the
 * daemon and the CLI do) and resolves once the line is on disk and audit.head names it (the
 * writer is idle), so a test reads the files in the state a finished append leaves.
 */
export async function appendAudit(home: string, entry: AuditEntry, now?: Date): Promise<AuditAppendResult> {
  const writer = sharedAuditWriter(home);
  const result = await writer.append(entry, now);
  await writer.idle();
  return result;
}

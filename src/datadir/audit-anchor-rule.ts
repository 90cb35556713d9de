/**
 * The rule of the audit chain's anchors (see audit-anchor.ts), apart from the code that reads
 * them, so that the appenders in audit-log.ts can apply it too.
 */
import { loadConfig } from './config.js';
import { DataDirError, shellQuote } from './data-dir-error.js';
import { DATA_FILES, dataFilePath } from './home.js';

/** A line the log must still hold: its seq and the SHA-256 of its bytes. */
export interface AuditAnchor {
  seq: number;
  hash: string;
}

/** The state.journal record type of the anchor. */
export const AUDIT_ANCHOR_RECORD = 'audit_anchor';

const HASH_SHAPE = /^[0-9a-f]{64}$/;

/** parseAnchor validates an anchor record's fields; undefined when malformed. */
export function parseAnchor(record: { seq?: unknown; hash?: unknown }): AuditAnchor | undefined {
  const { seq, hash } = record;
  if (!Number.isSafeInteger(seq) || (seq as number) < 1 || typeof hash !== 'string' || !HASH_SHAPE.test(hash)) return undefined;
  return { seq: seq as number, hash };
}

/**
 * anchorProblem says why a log of `lines` lines breaks its anchors, or undefined when it does
 * not: enrolled says config.json names a device; lineHashAt returns the hash of a line of the log.
 */
export function anchorProblem(lines: number, enrolled: string | undefined, anchor: AuditAnchor | undefined, lineHashAt: (seq: number) => string | undefined): string | undefined {
  if (lines === 0 && enrolled !== undefined) return `audit.log is missing or empty, but this device is enrolled (config.json names ${enrolled}) and enrolling was audited: the record was deleted`;
  if (anchor === undefined) return undefined;
  if (lines < anchor.seq) return `audit.log has ${lines} ${lines === 1 ? 'line' : 'lines'}, but state.journal records that line ${anchor.seq} was written: lines were removed, or the log was replaced`;
  if (lineHashAt(anchor.seq) !== anchor.hash) return `line ${anchor.seq} of audit.log is not the line state.journal records: the log was replaced or edited`;
  return undefined;
}

/** assertNotOrphaned refuses to start a new chain (an empty log) on an enrolled device; appenders call it. */
export function assertNotOrphaned(home: string, tailSeq: number): void {
  if (tailSeq !== 0) return;
  const enrolled = loadConfig(home).device_id;
  const problem = anchorProblem(0, enrolled, undefined, () => undefined);
  if (problem !== undefined) throw unanchored(home, problem);
}

/** unanchored is the refusal of a log that breaks its anchors: it names audit.log, and the two ways out. */
export function unanchored(home: string, problem: string): DataDirError {
  const aside = [dataFilePath(home, DATA_FILES.config), dataFilePath(home, DATA_FILES.stateJournal)].map((target) => `mv ${shellQuote(target)} ${shellQuote(`${target}.old`)}`);
  return new DataDirError(
    'corrupt',
    dataFilePath(home, DATA_FILES.auditLog),
    problem,
    `restore audit.log and audit.head (${dataFilePath(home, DATA_FILES.auditHead)}) from a backup. If the record is lost, keep what is left as evidence and start over knowingly: ${aside.join(' && ')}, then enroll again with latch setup`,
  );
}

/**
 * The rule of the audit chain's anchors (see audit-anchor.ts), apart from the code that reads
 * them, so that the appenders in audit-log.ts can apply it too.
 */
import path from 'node:path';
import { loadConfig } from './config.js';
import { DataDirError, shellQuote } from './data-dir-error.js';
import { DATA_FILES, dataFilePath } from './data-files.js';

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

/** The anchors this process's daemons have recorded, per data directory: the log may not end before them. */
const floors = new Map<string, AuditAnchor>();

/** raiseAuditFloor tells appenders in this process that the log reaches anchor (the daemon recorded it). */
export function raiseAuditFloor(home: string, anchor: AuditAnchor): void {
  const key = path.resolve(home);
  const current = floors.get(key);
  if (current === undefined || anchor.seq > current.seq) floors.set(key, anchor);
}

/**
 * assertAnchoredTail refuses, before anything is appended, a log that ends at tailSeq when that
 * would start a new chain on an enrolled device, or when the log ends before the anchor a daemon
 * of this process recorded (it was cut while the daemon ran, and audit.head rewritten to match).
 */
export function assertAnchoredTail(home: string, tailSeq: number): void {
  const floor = floors.get(path.resolve(home));
  if (floor !== undefined && tailSeq < floor.seq) throw unanchored(home, anchorProblem(tailSeq, undefined, floor, () => undefined) as string);
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

import type { AuditRecord } from '../datadir/audit-entry.js';
import { UsageError } from './command.js';

/** What `latch audit` can select lines by; every given condition must hold. */
export interface AuditFilter {
  operations?: ReadonlySet<string>;
  agent?: string;
  sinceMs?: number;
  /** Leave out signed upstream reads (sign_request GET/HEAD), which would bury the spending. */
  hideReads?: boolean;
}

/** isSignedRead reports whether a line is a signed upstream read: sign_request with GET or HEAD. */
export function isSignedRead(record: AuditRecord): boolean {
  return record.operation === 'sign_request' && (record['method'] === 'GET' || record['method'] === 'HEAD');
}

const RELATIVE_SINCE = /^([1-9][0-9]{0,5})(m|h|d)$/;
const UNIT_MS = { m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/**
 * parseSince reads `--since`: an ISO 8601 time (`2026-11-01T00:00:00Z`, or a date) or a span back
 * from now (`30m`, `12h`, `7d`).
 */
export function parseSince(text: string, nowMs: number): number {
  const relative = RELATIVE_SINCE.exec(text);
  if (relative !== null) return nowMs - Number(relative[1]) * UNIT_MS[relative[2] as keyof typeof UNIT_MS];
  if (/^\d{4}-\d\d-\d\d(T\d\d:\d\d(:\d\d(\.\d{1,3})?)?(Z|[+-]\d\d:\d\d))?$/.test(text)) {
    const ms = Date.parse(text);
    if (!Number.isNaN(ms)) return ms;
  }
  throw new UsageError('--since must be a time like 2026-11-01T00:00:00Z or 2026-11-01, or a span like 30m, 12h or 7d');
}

/** parseOperations reads `--operation a,b`: operation names as audit lines write them. */
export function parseOperations(text: string): ReadonlySet<string> {
  const names = text.split(',');
  if (names.length > 32 || names.some((name) => !/^[a-z][a-z0-9_.-]{0,63}$/.test(name))) {
    throw new UsageError('--operation takes operation names separated by commas, e.g. authorize,sign_revocation');
  }
  return new Set(names);
}

/** auditAgentOf is who a line was signed for: lines written before agents existed are the owner's. */
export function auditAgentOf(record: AuditRecord): string {
  return typeof record['agent'] === 'string' ? record['agent'] : 'owner';
}

/** matchesAuditFilter reports whether a line satisfies every condition of filter. */
export function matchesAuditFilter(record: AuditRecord, filter: AuditFilter): boolean {
  if (filter.operations !== undefined && !filter.operations.has(record.operation)) return false;
  if (filter.agent !== undefined && auditAgentOf(record) !== filter.agent) return false;
  if (filter.sinceMs !== undefined && !(Date.parse(record.time) >= filter.sinceMs)) return false;
  if (filter.hideReads === true && isSignedRead(record)) return false;
  return true;
}

/**
 * Variant A's audit routes (docs/decisions.md §30), the owner's only: in the separate-user setup the
 * owner cannot read the daemon's audit.log, so `latch audit` and `latch audit verify` ask the
 * daemon. GET /audit answers the latest lines as they are in the file; GET /audit/verify checks the
 * hash chain in the daemon, exactly as `latch audit verify` does on the file.
 */
import type { AuditRecord } from '../datadir/audit-entry.js';
import type { AuditVerification } from '../verify/audit-verify.js';
import type { RouteHandler } from '../http/route.js';
import { int, validateQuery } from '../validate/schema.js';
import { ok } from '../variant-common/operation-context.js';

/** The most lines GET /audit answers at once. */
export const AUDIT_LINES_MAX = 1000;

/** What the routes call: the latest records, and the chain check. */
export interface AuditOperations {
  recent(limit: number): AuditRecord[];
  verify(): AuditVerification;
}

const listRules = { limit: int({ min: 1, max: AUDIT_LINES_MAX, default: 100 }) };

/** auditHandlers maps the two routes to the audit operations. */
export function auditHandlers(operations: AuditOperations): { list: RouteHandler; verify: RouteHandler } {
  return {
    list: async (request) => {
      const query = validateQuery(request.query, listRules);
      return ok({ records: operations.recent(query.limit), has_more: false });
    },
    verify: async (request) => {
      validateQuery(request.query, {});
      const result = operations.verify();
      return ok({ ok: result.ok, lines: result.lines, problem: result.ok ? null : (result.problem ?? { line: 0, reason: 'unknown problem' }) });
    },
  };
}

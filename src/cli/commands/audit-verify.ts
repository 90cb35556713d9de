import { auditLogPath } from '../../datadir/audit-log.js';
import { verifyAudit } from '../../verify/audit-verify.js';
import { resolveHome } from '../../datadir/home.js';
import { EXIT } from '../exit-codes.js';
import { localCommand } from '../local-command.js';

const USAGE = `Usage: latch audit verify [--json]

Checks the hash chain of $LATCH_HOME/audit.log (default ~/.latch): every line must chain to the
one before it and the last line must match audit.head, so an edited, deleted or inserted line
is reported with the first line where the chain breaks. On an enrolled device a missing or empty
log, or one shorter than (or different at) the line state.journal records as written, is broken
too: the record was deleted or replaced.

With --json it prints {"ok", "file", "lines", "problem": {"line", "reason"} | null}.

Exit codes: 0 intact; 6 broken; 2 bad usage; 3 unsafe or broken data directory; 7 --agent given; 1 anything else.`;

interface AuditVerification {
  ok: boolean;
  file: string;
  lines: number;
  problem: { line: number; reason: string } | null;
}

/** `latch audit verify` checks the audit log's hash chain (docs/decisions.md §11). */
export const auditVerifyCommand = localCommand<AuditVerification>({
  name: 'audit verify',
  summary: 'Check that no line of audit.log was edited, deleted or inserted',
  usage: USAGE,
  flags: {},
  positionalsMax: 0,
  perform(_args, io) {
    const home = resolveHome(io.env);
    const result = verifyAudit(home);
    return { ok: result.ok, file: auditLogPath(home), lines: result.lines, problem: result.ok ? null : (result.problem ?? { line: 0, reason: 'unknown problem' }) };
  },
  human: (result) =>
    result.ok
      ? [`${result.file}: ${result.lines} ${result.lines === 1 ? 'line' : 'lines'}, hash chain intact.`]
      : [`${result.file}: hash chain broken at line ${result.problem?.line ?? '?'}: ${result.problem?.reason ?? 'unknown problem'}.`],
  exitCode: (result) => (result.ok ? EXIT.ok : EXIT.verifyFailed),
});

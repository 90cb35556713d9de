import { auditLogPath } from '../../datadir/audit-log.js';
import { verifyAudit } from '../../datadir/audit-verify.js';
import { resolveHome } from '../../datadir/home.js';
import { writeLine, type Command } from '../command.js';
import { EXIT } from '../exit-codes.js';
import { parseFlags } from '../flags.js';
import { reportError } from '../report-error.js';

const USAGE = `Usage: latch audit verify

Checks the hash chain of $LATCH_HOME/audit.log (default ~/.latch): every line must chain to the
one before it and the last line must match audit.head, so an edited, deleted or inserted line
is reported with the first line where the chain breaks. On an enrolled device a missing or empty
log, or one shorter than (or different at) the line state.journal records as written, is broken
too: the record was deleted or replaced.

Exit codes: 0 intact; 6 broken; 2 bad usage; 3 unsafe or broken data directory; 1 anything else.`;

/** `latch audit verify` checks the audit log's hash chain (docs/decisions.md §11). */
export const auditVerifyCommand: Command = {
  name: 'audit verify',
  summary: 'Check that no line of audit.log was edited, deleted or inserted',
  usage: USAGE,
  async run(args, io) {
    try {
      parseFlags(args, {});
      const home = resolveHome(io.env);
      const result = verifyAudit(home);
      const file = auditLogPath(home);
      if (result.ok) {
        writeLine(io.stdout, `${file}: ${result.lines} ${result.lines === 1 ? 'line' : 'lines'}, hash chain intact.`);
        return EXIT.ok;
      }
      const problem = result.problem;
      writeLine(io.stderr, `${file}: hash chain broken at line ${problem?.line ?? '?'}: ${problem?.reason ?? 'unknown problem'}.`);
      return EXIT.verifyFailed;
    } catch (error) {
      return reportError(error, io, 'audit verify');
    }
  },
};

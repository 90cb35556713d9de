import { auditLogPath, readAudit } from '../../datadir/audit-log.js';
import type { AuditRecord } from '../../datadir/audit-entry.js';
import { resolveHome } from '../../datadir/home.js';
import { writeLine, type Command } from '../command.js';
import { integerFlag, parseCommandArgs } from '../daemon-calls/command-args.js';
import { table } from '../daemon-calls/views.js';
import { EXIT } from '../exit-codes.js';
import { reportError } from '../report-error.js';

const USAGE = `Usage: latch audit [--limit N] [--json]
       latch audit verify

Shows the most recent lines of $LATCH_HOME/audit.log (default ~/.latch): one line per signature
the daemon made (policy windows, revocations, signed upstream requests) with time, operation,
policy, card, merchant, amount, key id, request id and the caller's User-Agent. It reads the
file directly; no daemon is needed. 'latch audit verify' checks the hash chain.

Options:
  --limit N    how many of the latest lines, 1 to 1000 (default 20)
  --json       print {file, records: [...]} with every field of each line

Exit codes: 0 ok; 2 bad usage; 3 unsafe or unreadable data directory or audit.log.`;

/** `latch audit` shows the latest audit.log lines (`audit verify` is its own command). */
export const auditCommand: Command = {
  name: 'audit',
  summary: 'Show the latest signatures recorded in audit.log',
  usage: USAGE,
  async run(args, io) {
    try {
      const { flags } = parseCommandArgs(args, { limit: 'value', json: 'boolean' }, 0);
      const limit = integerFlag(flags, 'limit', 1, 1000) ?? 20;
      const home = resolveHome(io.env);
      const records = readAudit(home, { limit });
      const file = auditLogPath(home);
      if (flags['json'] === true) {
        writeLine(io.stdout, JSON.stringify({ file, records }));
        return EXIT.ok;
      }
      if (records.length === 0) {
        writeLine(io.stdout, `${file}: no signatures recorded yet.`);
        return EXIT.ok;
      }
      for (const line of table(['SEQ', 'TIME', 'OPERATION', 'SUBJECT', 'AMOUNT', 'CALLER'], records.map(row))) writeLine(io.stdout, line);
      return EXIT.ok;
    } catch (error) {
      return reportError(error, io, 'audit');
    }
  },
};

function row(record: AuditRecord): string[] {
  const method = typeof record['method'] === 'string' ? record['method'] : undefined;
  const path = typeof record['path'] === 'string' ? record['path'] : undefined;
  const subject = method !== undefined ? `${method} ${path ?? ''}` : [record.policy_id, record.card_id, record.merchant].filter((part) => part !== null).join(' ');
  const amount = record.amount === null ? '' : `${record.amount} ${record.currency ?? ''}`.trim();
  return [String(record.seq), record.time, record.operation, subject, amount, record.user_agent ?? ''];
}

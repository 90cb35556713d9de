import { auditLogPath, readAudit } from '../../datadir/audit-log.js';
import type { AuditRecord } from '../../datadir/audit-entry.js';
import { resolveHome } from '../../datadir/home.js';
import { UsageError, writeLine, type CliIo, type Command } from '../command.js';
import { daemonLivesElsewhere } from '../owner-session.js';
import { newCliClient, reportCallError } from '../daemon-calls/daemon-call-command.js';
import { AUDIT_LINES_MAX } from '../../variant-a/audit-routes.js';
import { LatchClientError } from '../../client/client-errors.js';
import { auditAgentOf, matchesAuditFilter, parseOperations, parseSince, type AuditFilter } from '../audit-filter.js';
import { integerFlag, parseCommandArgs, stringFlag } from '../daemon-calls/command-args.js';
import type { Flags } from '../flags.js';
import { table } from '../daemon-calls/views.js';
import { EXIT } from '../exit-codes.js';
import { reportError } from '../report-error.js';
import { isAgentNameShape } from '../../ids/agent-name.js';

const USAGE = `Usage: latch audit [--operation NAMES] [--agent NAME] [--since WHEN] [--limit N] [--reads] [--passphrase-stdin] [--json]
       latch audit verify

Shows the most recent lines of $LATCH_HOME/audit.log (default ~/.latch): one line per signature
the daemon made (policy windows, revocations, signed upstream requests) with time, operation,
policy, card, merchant, amount, key id, request id and the caller's User-Agent. It reads the
file directly; no daemon is needed. 'latch audit verify' checks the hash chain. In the
separate-user setup, where the log is the daemon's, it asks the daemon (GET /audit, with the
owner passphrase; --passphrase-stdin reads it from standard input), and the filters apply to the
latest 1000 lines.

By default it leaves out the signed upstream reads (sign_request GET and HEAD, which the daemon
makes for every card or transaction listing), so what moved or could move money comes first;
--reads shows them too, and so does --operation naming sign_request.

Options:
  --operation NAMES  only these operations, comma-separated (e.g. authorize,merchant_bind,
                     sign_revocation; sign_request is a signed upstream request)
  --agent NAME       only what was signed for this caller (an agent's name, or owner)
  --since WHEN       only lines at or after WHEN: 2026-11-01, 2026-11-01T09:00:00Z, or 30m/12h/7d ago
  --limit N          how many of the latest matching lines, 1 to 1000 (default 20)
  --reads            include the signed upstream reads (sign_request GET/HEAD)
  --json             print {file, records: [...]} with every field of each line

Exit codes: 0 ok; 2 bad usage; 3 unsafe or unreadable data directory or audit.log.`;

/** `latch audit` shows the latest audit.log lines (`audit verify` is its own command). */
export const auditCommand: Command = {
  name: 'audit',
  summary: 'Show the latest signatures recorded in audit.log',
  usage: USAGE,
  async run(args, io) {
    try {
      const { flags } = parseCommandArgs(args, { limit: 'value', json: 'boolean', operation: 'value', agent: 'value', since: 'value', reads: 'boolean', 'passphrase-stdin': 'boolean' }, 0);
      const limit = integerFlag(flags, 'limit', 1, 1000) ?? 20;
      const filter = auditFilter(flags);
      const home = resolveHome(io.env);
      const keep = (record: AuditRecord) => matchesAuditFilter(record, filter);
      // In the separate-user setup the log is the daemon's: ask it, never this empty folder (§30).
      const elsewhere = daemonLivesElsewhere(home, io.env);
      const records = elsewhere ? await auditThroughApi(io, flags['passphrase-stdin'] === true, limit, keep) : readAudit(home, { limit, filter: keep });
      const file = elsewhere ? "the daemon's audit.log" : auditLogPath(home);
      if (flags['json'] === true) {
        writeLine(io.stdout, JSON.stringify({ file, records }));
        return EXIT.ok;
      }
      if (records.length === 0) {
        const filtered = Object.keys(filter).some((key) => key !== 'hideReads');
        writeLine(io.stdout, filtered ? `${file}: no line matches.` : `${file}: no signatures recorded yet.`);
        return EXIT.ok;
      }
      for (const line of table(['SEQ', 'TIME', 'OPERATION', 'SUBJECT', 'AMOUNT', 'AGENT', 'USER-AGENT'], records.map(row))) writeLine(io.stdout, line);
      return EXIT.ok;
    } catch (error) {
      if (error instanceof LatchClientError) return reportCallError(error, io, 'audit', args.includes('--json'));
      return reportError(error, io, 'audit');
    }
  },
};

/**
 * auditThroughApi reads the daemon's latest lines (GET /audit, the owner's session) and filters
 * them here: the filters apply to the latest 1000 lines.
 */
async function auditThroughApi(io: CliIo, passphraseStdin: boolean, limit: number, keep: (record: AuditRecord) => boolean): Promise<AuditRecord[]> {
  const client = newCliClient({ ...io, env: { ...io.env, LATCH_AGENT: '' } }, '', { passphraseStdin });
  try {
    const answer = await client.auditRecords(AUDIT_LINES_MAX);
    return (answer.records as unknown as AuditRecord[]).filter(keep).slice(-limit);
  } finally {
    client.close();
  }
}

function row(record: AuditRecord): string[] {
  const method = typeof record['method'] === 'string' ? record['method'] : undefined;
  const path = typeof record['path'] === 'string' ? record['path'] : undefined;
  const outcome = typeof record['outcome'] === 'string' ? `${record['outcome']}${typeof record['code'] === 'string' ? ` (${record['code']})` : ''}` : undefined;
  const parts = [record.policy_id, record.card_id, record.merchant, outcome ?? null].filter((part) => part !== null && part !== undefined);
  const subject = method !== undefined ? `${method} ${path ?? ''}` : parts.join(' ');
  const amount = record.amount === null ? '' : `${record.amount} ${record.currency ?? ''}`.trim();
  return [String(record.seq), record.time, record.operation, subject, amount, auditAgentOf(record), record.user_agent ?? ''];
}

function auditFilter(flags: Flags): AuditFilter {
  const filter: AuditFilter = {};
  const operation = stringFlag(flags, 'operation');
  if (operation !== undefined) filter.operations = parseOperations(operation);
  const agent = stringFlag(flags, 'agent');
  if (agent !== undefined) {
    if (agent !== 'owner' && !isAgentNameShape(agent)) throw new UsageError('--agent must be an agent name (see latch agent list) or owner');
    filter.agent = agent;
  }
  const since = stringFlag(flags, 'since');
  if (since !== undefined) filter.sinceMs = parseSince(since, Date.now());
  // Spending first: reads only on request (--reads), or when --operation asks for sign_request.
  if (flags['reads'] !== true && filter.operations?.has('sign_request') !== true) filter.hideReads = true;
  return filter;
}

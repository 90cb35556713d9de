import { auditLogPath } from '../../datadir/audit-log.js';
import { readAudit } from '../../verify/audit-read.js';
import { AUDIT_COLUMNS, auditRow } from '../audit-rows.js';
import { resolveHome } from '../../datadir/home.js';
import { UsageError, writeLine, type CliIo, type Command } from '../command.js';
import { daemonLivesElsewhere } from '../owner-session.js';
import { newCliClient, reportCallError } from '../daemon-calls/daemon-call-command.js';
import { AUDIT_LINES_MAX } from '../../variant-a/audit-routes.js';
import { LatchClientError } from '../../client/client-errors.js';
import type { AuditRecord } from '../../datadir/audit-entry.js';
import { auditSize, followAudit } from '../audit-follow.js';
import { matchesAuditFilter, parseOperations, parseSince, type AuditFilter } from '../audit-filter.js';
import { integerFlag, parseCommandArgs, stringFlag } from '../daemon-calls/command-args.js';
import type { Flags } from '../flags.js';
import { table } from '../daemon-calls/views.js';
import { EXIT } from '../exit-codes.js';
import { reportError } from '../report-error.js';
import { isAgentNameShape } from '../../ids/agent-name.js';

const USAGE = `Usage: latch audit [--operation NAMES] [--agent NAME] [--since WHEN] [--limit N] [--reads] [--follow] [--passphrase-stdin] [--json]
       latch audit verify

Shows the most recent lines of $LATCH_HOME/audit.log (default ~/.latch): one line per signature
the daemon made (policy windows, revocations, signed upstream and web requests, approvals,
outcomes) with its time, operation, agent, merchant (for a signed web request, the host it went
to), amount, details (the request line with host and path, or the policy, card, outcome and the
refusal's code) and the caller's User-Agent. It reads the
file directly; no daemon is needed. 'latch audit verify' checks the hash chain. In the
separate-user setup, where the log is the daemon's, it asks the daemon (GET /audit, with the
owner passphrase; --passphrase-stdin reads it from standard input), and the filters apply to the
latest 1000 lines; --follow there is refused (it watches the file, which only the daemon's user reads).

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
  --follow           after the latest lines, keep printing each new line as the daemon writes
                     it, until Ctrl-C (exit 0); the filters apply to the new lines too
  --json             print {file, records: [...]} with every field of each line; with --follow,
                     one record per line (JSON Lines), the latest first, then each new one

Exit codes: 0 ok (with --follow: stopped by Ctrl-C); 2 bad usage; 3 unsafe or unreadable data directory or audit.log.`;

/** `latch audit` shows the latest audit.log lines (`audit verify` is its own command). */
export const auditCommand: Command = {
  name: 'audit',
  summary: 'Show the latest signatures recorded in audit.log',
  usage: USAGE,
  async run(args, io) {
    try {
      const { flags } = parseCommandArgs(args, { limit: 'value', json: 'boolean', operation: 'value', agent: 'value', since: 'value', reads: 'boolean', follow: 'boolean', 'passphrase-stdin': 'boolean' }, 0);
      const limit = integerFlag(flags, 'limit', 1, 1000) ?? 20;
      const filter = auditFilter(flags);
      const home = resolveHome(io.env);
      const keep = (record: AuditRecord) => matchesAuditFilter(record, filter);
      // In the separate-user setup the log is the daemon's: ask it, never this empty folder (§30).
      const elsewhere = daemonLivesElsewhere(home, io.env);
      if (elsewhere && flags['follow'] === true) {
        throw new UsageError("--follow watches the audit file, and in the separate-user setup only the daemon's user reads it: run latch audit again for the latest lines, or follow it as that user (sudo -u SERVICE_USER latch audit --follow)");
      }
      // Measured before reading, so a line written meanwhile is read again rather than missed (and
      // printed once: follow skips what the latest lines already showed).
      const followFrom = flags['follow'] === true ? auditSize(home) : 0;
      const records = elsewhere ? await auditThroughApi(io, flags['passphrase-stdin'] === true, limit, keep) : readAudit(home, { limit, filter: keep });
      const file = elsewhere ? "the daemon's audit.log" : auditLogPath(home);
      if (flags['follow'] === true) return await follow(io, home, records, followFrom, filter, flags['json'] === true);
      if (flags['json'] === true) {
        writeLine(io.stdout, JSON.stringify({ file, records }));
        return EXIT.ok;
      }
      if (records.length === 0) {
        const filtered = Object.keys(filter).some((key) => key !== 'hideReads');
        writeLine(io.stdout, filtered ? `${file}: no line matches.` : `${file}: no signatures recorded yet.`);
        return EXIT.ok;
      }
      for (const line of table([...AUDIT_COLUMNS], records.map(auditRow))) writeLine(io.stdout, line);
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

/** follow prints the latest records and then every new one that matches, until SIGINT or SIGTERM. */
async function follow(io: CliIo, home: string, latest: readonly AuditRecord[], from: number, filter: AuditFilter, json: boolean): Promise<number> {
  const print = (record: AuditRecord): void => writeLine(io.stdout, json ? JSON.stringify(record) : auditRow(record).join('  '));
  if (!json) {
    const [header, ...rows] = table([...AUDIT_COLUMNS], latest.map(auditRow));
    writeLine(io.stdout, latest.length === 0 ? AUDIT_COLUMNS.join('  ') : (header ?? ''));
    for (const line of rows) writeLine(io.stdout, line);
  } else {
    for (const record of latest) print(record);
  }
  const stop = new AbortController();
  const stopNow = (): void => stop.abort();
  process.on('SIGINT', stopNow);
  process.on('SIGTERM', stopNow);
  try {
    const shownSeq = latest.reduce((max, record) => Math.max(max, record.seq), 0);
    await followAudit(home, from, (record) => {
      if (record.seq > shownSeq && matchesAuditFilter(record, filter)) print(record);
    }, stop.signal);
  } finally {
    process.off('SIGINT', stopNow);
    process.off('SIGTERM', stopNow);
  }
  return EXIT.ok;
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

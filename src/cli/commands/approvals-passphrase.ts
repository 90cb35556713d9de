/**
 * `latch approvals passphrase set | clear`: the approval passphrase makes approving need something
 * an agent that can run commands as the owner's user does not have in its files (docs/decisions.md §15.4).
 * It is read without echo and stored only as an scrypt hash; it is never printed or logged.
 */
import { approvalPassphrasePath, approvalPassphraseProblem, clearApprovalPassphrase, setApprovalPassphrase } from '../../datadir/approval-passphrase.js';
import { reportApprovalError } from '../approvals/approval-errors.js';
import { stdinPassphrase, terminalKeys, withKeys } from '../approvals/owner-input.js';
import { UsageError, writeLine, type CliIo, type Command } from '../command.js';
import { EXIT } from '../exit-codes.js';
import { parseFlags } from '../flags.js';
import { JSON_OPTION, OWNER_ONLY_AGENT_OPTION, refuseAgentFlag } from '../common-options.js';
import { stringFlag } from '../daemon-calls/command-args.js';
import { readSecret } from '../terminal/prompts.js';
import { privateHome } from '../private-home.js';

/** What the passphrase guards and what it does not, said when it is set (docs/decisions.md §31.3). */
export const PASSPHRASE_GUARDS = [
  'It guards the daemon\'s API: approving, resuming, changing the policy, adding agents and allocating through it need the passphrase, so a program holding only the daemon token cannot.',
  'It does not guard your files: a program running as you can edit the data directory (latch resume and latch agent add do, and say so). The separate-user setup (SECURITY.md) puts the files out of its reach.',
];

/** `latch approvals passphrase set` stores a new approval passphrase. */
export const approvalsPassphraseSetCommand: Command = {
  name: 'approvals passphrase set',
  summary: 'Set the passphrase that approving a request needs (read without echo)',
  usage: `Usage: latch approvals passphrase set [--passphrase-stdin] [--json]

Asks twice on the terminal, without echo, for a new approval passphrase (8 to 1024 characters, no
control characters) and stores its scrypt hash in $LATCH_HOME/approval_passphrase (0600), replacing
any earlier one. From then on approving a request (latch approve, latch approvals watch) needs it;
denying does not. A running daemon uses it from the next approval. The passphrase is never printed.

Options:
  --passphrase-stdin   read it once from the first line of standard input instead (for scripts);
                       without it, standard input must be a terminal
${JSON_OPTION} ({"set": true, "file"}; never the passphrase)
${OWNER_ONLY_AGENT_OPTION}

Exit codes: 0 set; 2 bad usage, an unacceptable passphrase, or the two entries differ;
3 unsafe data directory; 7 --agent given; 130 interrupted with Ctrl-C (nothing changed).`,
  async run(args, io) {
    let json = false;
    try {
      const flags = parseFlags(args, { 'passphrase-stdin': 'boolean', json: 'boolean', agent: 'value' });
      json = flags['json'] === true;
      refuseAgentFlag('approvals passphrase set', stringFlag(flags, 'agent'));
      const home = privateHome(io.env);
      const passphrase = flags['passphrase-stdin'] === true ? await stdinPassphrase(io) : await askTwice(io);
      const problem = approvalPassphraseProblem(passphrase);
      if (problem !== undefined) throw new UsageError(`${problem}; nothing was changed.`);
      setApprovalPassphrase(home, passphrase);
      if (json) {
        writeLine(io.stdout, JSON.stringify({ set: true, file: approvalPassphrasePath(home) }));
        return EXIT.ok;
      }
      writeLine(io.stdout, `Approval passphrase set (its hash is in ${approvalPassphrasePath(home)}).`);
      writeLine(io.stdout, 'Approving a request now needs it: latch approve, latch approvals watch, or --passphrase-stdin in scripts.');
      for (const line of PASSPHRASE_GUARDS) writeLine(io.stdout, line);
      return EXIT.ok;
    } catch (error) {
      return reportApprovalError(error, io, 'approvals passphrase set', json);
    }
  },
};

/** `latch approvals passphrase clear` removes the approval passphrase. */
export const approvalsPassphraseClearCommand: Command = {
  name: 'approvals passphrase clear',
  summary: 'Remove the approval passphrase (approving then needs only the owner token)',
  usage: `Usage: latch approvals passphrase clear [--json]

Removes $LATCH_HOME/approval_passphrase: approving then needs only the owner's daemon token (and a
[y/N] on the terminal, or --yes). What the passphrase protects against: a program that holds the
daemon token (a copy of $LATCH_HOME/daemon_token) but cannot run commands as you. Agent tokens
cannot approve at all, with or without it. It does not protect against a program that runs as
your user: such a program can remove the file, as this command does.

Options:
${JSON_OPTION} ({"removed": true|false})
${OWNER_ONLY_AGENT_OPTION}

Exit codes: 0 removed (or none was set); 2 bad usage; 3 unsafe data directory; 7 --agent given.`,
  async run(args, io) {
    let json = false;
    try {
      const flags = parseFlags(args, { json: 'boolean', agent: 'value' });
      json = flags['json'] === true;
      refuseAgentFlag('approvals passphrase clear', stringFlag(flags, 'agent'));
      const removed = clearApprovalPassphrase(privateHome(io.env));
      if (json) {
        writeLine(io.stdout, JSON.stringify({ removed }));
        return EXIT.ok;
      }
      writeLine(io.stdout, removed ? 'Approval passphrase removed; approving needs only the owner token now.' : 'No approval passphrase was set.');
      return EXIT.ok;
    } catch (error) {
      return reportApprovalError(error, io, 'approvals passphrase clear', json);
    }
  },
};


/** askTwice reads the new passphrase twice without echo; the entries must match. */
async function askTwice(io: CliIo): Promise<string> {
  const keys = terminalKeys(io, 'use --passphrase-stdin to read the passphrase from it');
  return withKeys(keys, async (k) => {
    const first = await readSecret(k, io.stderr, 'New approval passphrase (not shown): ');
    const problem = approvalPassphraseProblem(first);
    if (problem !== undefined) throw new UsageError(`${problem}; nothing was changed.`);
    const second = await readSecret(k, io.stderr, 'Repeat it: ');
    if (second !== first) throw new UsageError('the two entries differ; nothing was changed.');
    return first;
  });
}

/**
 * `latch approvals`, `latch approve ID` and `latch deny ID`: the owner's side of the human
 * approval (docs/decisions.md §15.4). approve and deny first show the exact request, then act on it;
 * approving asks for the approval passphrase when one is set.
 */
import { LatchClientError } from '../../client/client-errors.js';
import type { LatchClient } from '../../client/latch-client.js';
import type { Approval } from '../../client/types.js';
import { approvalIdArg, reportApprovalError } from '../approvals/approval-errors.js';
import { cardLabels } from '../approvals/card-labels.js';
import { ownerConsent, sessionConsent } from '../approvals/owner-input.js';
import { writeLine, type CliIo, type Command } from '../command.js';
import { integerFlag, optional, parseCommandArgs, stringFlag } from '../daemon-calls/command-args.js';
import { newCliClient } from '../daemon-calls/daemon-call-command.js';
import { approvalLines, approvalRows } from '../daemon-calls/approval-views.js';
import { printable } from '../daemon-calls/views.js';
import { refuseAgentFlag } from '../common-options.js';
import { EXIT } from '../exit-codes.js';
import type { FlagKind } from '../flags.js';

const DECISION_EXIT_CODES = `Exit codes: 0 done; 7 refused (approval_not_found, approval_not_pending, invalid_passphrase,
too_many_attempts, agent_not_permitted, or approved but the cloud refused); 8 daemon unreachable;
2 bad usage; 130 interrupted with Ctrl-C (nothing was sent).`;

/** `latch approvals` lists the approvals waiting for the owner. */
export const approvalsCommand: Command = {
  name: 'approvals',
  summary: 'List the requests waiting for your approval (see also approve, deny, approvals watch)',
  usage: `Usage: latch approvals [--all] [--limit N] [--starting-after ap_…] [--agent NAME] [--json]

Lists the approvals waiting for the owner (GET /approvals?status=pending_approval), newest first:
id, agent, card, merchant, amount and type, the rule that asked, and when it expires. Decide with
latch approve ID or latch deny ID, or keep latch approvals watch open to decide as they arrive.

Options:
  --all                  every approval, whatever its state (approved, denied, expired, failed)
  --limit N              at most N (1-100)
  --starting-after ID    the page after this approval
  --agent NAME           list as this agent (its own approvals only)
  --passphrase-stdin     in the separate-user setup, read the owner passphrase from standard input
  --json                 print {"approvals": [...], "has_more": ...}

Exit codes: 0 listed; 7 refused; 8 daemon unreachable; 2 bad usage.`,
  async run(args, io) {
    let client: LatchClient | undefined;
    let json = false;
    try {
      const { flags } = parseCommandArgs(args, { all: 'boolean', limit: 'value', 'starting-after': 'value', agent: 'value', json: 'boolean', 'passphrase-stdin': 'boolean' }, 0);
      json = flags['json'] === true;
      const query = {
        ...(flags['all'] !== true && { status: 'pending_approval' as const }),
        ...optional('limit', integerFlag(flags, 'limit', 1, 100)),
        ...optional('starting_after', stringFlag(flags, 'starting-after')),
      };
      client = newCliClient(io, stringFlag(flags, 'agent'), { passphraseStdin: flags['passphrase-stdin'] === true });
      const list = await client.approvals(query);
      if (json) {
        writeLine(io.stdout, JSON.stringify(list));
        return EXIT.ok;
      }
      const rows = approvalRows(list.approvals, await cardLabels(client));
      for (const line of flags['all'] === true && list.approvals.length === 0 ? ['No approvals.'] : rows) writeLine(io.stdout, line);
      const last = list.approvals[list.approvals.length - 1];
      if (list.has_more && last !== undefined) writeLine(io.stdout, `More: latch approvals --starting-after ${last.approval_id}`);
      return EXIT.ok;
    } catch (error) {
      return reportApprovalError(error, io, 'approvals', json);
    } finally {
      client?.close();
    }
  },
};

/** `latch approve ID` shows the request and approves exactly it. */
export const approveCommand: Command = {
  name: 'approve',
  summary: 'Show a pending request in full and approve exactly it',
  usage: `Usage: latch approve ap_… [--passphrase-stdin] [--yes] [--json] [--agent NAME]

Fetches the approval and shows the exact request (agent, card label and id, merchant, amount and
type, kind, how long it is valid, recurring terms, the rule that asked and why), then approves it:
the daemon signs exactly that request, nothing of it can be changed, and registers it with the cloud.

When it asks you to confirm:
  - same-user setup, an approval passphrase set (latch approvals passphrase set): it asks the
    passphrase on the terminal without echo; typing it is the confirmation, nothing else is asked.
  - same-user setup, no approval passphrase: it asks "Approve exactly this request? [y/N]" on the
    terminal; --yes skips the question, and without a terminal --yes is required.
  - separate-user setup (the daemon runs as its own user): it asks the owner passphrase first (for
    the session), shows the request, then asks "Approve exactly this request? [y/N]"; --yes or
    --passphrase-stdin skip the question.
Enter alone, or "n", answers no.

Options:
  --passphrase-stdin   read the passphrase from the first line of standard input (for scripts)
  --yes                approve without the [y/N] question (only when no passphrase is set)
  --json               print the approval as it now stands (the request goes to stderr)
  --agent NAME         refused (exit 7, agent_not_permitted): only the owner approves, so nothing is
                       asked or sent

${DECISION_EXIT_CODES}
Answering "n" sends nothing and exits 0.`,
  run: (args, io) => decide('approve', args, io),
};

/** `latch deny ID` shows the request and refuses it. */
export const denyCommand: Command = {
  name: 'deny',
  summary: 'Show a pending request in full and deny it, with an optional reason',
  usage: `Usage: latch deny ap_… [--reason TEXT] [--json] [--agent NAME]

Fetches the approval, shows the exact request, and denies it: nothing is signed, and the agent's
request ends with 403 approval_denied and your reason. Denying needs no passphrase and asks no
question, since it authorizes nothing.

Options:
  --reason TEXT   what the agent is told
  --passphrase-stdin   in the separate-user setup, read the owner passphrase from standard input
  --json          print the approval as it now stands (the request goes to stderr)
  --agent NAME    refused (exit 7, agent_not_permitted): only the owner denies

${DECISION_EXIT_CODES}`,
  run: (args, io) => decide('deny', args, io),
};

async function decide(commandName: 'approve' | 'deny', args: string[], io: CliIo): Promise<number> {
  let client: LatchClient | undefined;
  let json = false;
  try {
    const own: Record<string, FlagKind> = commandName === 'approve' ? { 'passphrase-stdin': 'boolean', yes: 'boolean' } : { reason: 'value', 'passphrase-stdin': 'boolean' };
    const spec: Record<string, FlagKind> = { ...own, json: 'boolean', agent: 'value' };
    const { flags, positionals } = parseCommandArgs(args, spec, 1);
    json = flags['json'] === true;
    const approvalId = approvalIdArg(positionals[0], commandName);
    // The daemon refuses an agent's decision; refusing here asks for no passphrase and sends nothing.
    refuseAgentFlag(commandName, stringFlag(flags, 'agent'));
    const passphraseStdin = flags['passphrase-stdin'] === true;
    client = newCliClient(io, undefined, { passphraseStdin });
    const approval = await client.approval(approvalId);
    const terms = json ? io.stderr : io.stdout;
    for (const line of approvalLines(approval, (await cardLabels(client)).get(approval.request.card_id ?? ''))) writeLine(terms, line);
    if (approval.status !== 'pending_approval') {
      throw new LatchClientError({ code: 'approval_not_pending', status: null, message: `${approvalId} is ${approval.status}: only a pending approval can be decided.` });
    }
    let decided: Approval;
    if (commandName === 'deny') {
      decided = await client.deny(approvalId, optional('reason', stringFlag(flags, 'reason')));
    } else {
      // In the separate-user setup the passphrase already opened this command's session (which
      // carries the owner's presence); what is left to ask is the yes to exactly this request.
      const consent = client.hasOwnerSession() ? await sessionConsent(io, { given: passphraseStdin || flags['yes'] === true }) : await ownerConsent(io, client.home, { passphraseStdin, yes: flags['yes'] === true });
      if (!consent.approve) {
        writeLine(io.stderr, 'Not approved; nothing was sent.');
        return EXIT.ok;
      }
      decided = await client.approve(approvalId, optional('passphrase', consent.passphrase));
    }
    if (json) writeLine(io.stdout, JSON.stringify(decided));
    else writeLine(io.stdout, outcomeLine(decided));
    return decided.status === 'failed' ? EXIT.refused : EXIT.ok;
  } catch (error) {
    return reportApprovalError(error, io, commandName, json);
  } finally {
    client?.close();
  }
}

/** The refusals made on this device, not by the cloud, and who made them. */
const LOCAL_REFUSERS: Readonly<Record<string, string>> = {
  policy_denied: 'the local spending policy (policy.json)',
  daemon_paused: 'the pause (latch pause)',
  policy_invalid: 'the local spending policy (policy.json is invalid)',
};

/** outcomeLine says what a decision did, in one line. */
export function outcomeLine(approval: Approval): string {
  return printable(outcomeText(approval));
}

function outcomeText(approval: Approval): string {
  if (approval.status === 'approved') return `Approved ${approval.approval_id}: authorization ${approval.authorization?.policy_id ?? '(pending registration)'} created.`;
  if (approval.status === 'denied') return `Denied ${approval.approval_id}${approval.reason == null ? '' : ` (reason: ${approval.reason})`}.`;
  if (approval.status === 'failed') {
    // Who refused it: this device's own policy or brake, or the cloud (issue 44 item 4).
    const code = approval.error?.code ?? 'unknown error';
    const who = LOCAL_REFUSERS[code] ?? 'the cloud';
    return `Approved ${approval.approval_id}, but ${who} refused it when it was signed, so the approval is now failed: ${code}${approval.error?.message === undefined ? '' : ` (${approval.error.message})`}.`;
  }
  return `${approval.approval_id} is now ${approval.status}.`;
}

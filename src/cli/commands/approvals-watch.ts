/**
 * `latch approvals watch`: the owner keeps a terminal open, and each request the policy holds back
 * appears with its full terms and a question — approve, deny or skip — like `ssh-add -c`'s
 * confirmation, but with the terms in front of you. It polls; the daemon has no long-poll for lists.
 */
import { LatchClientError } from '../../client/client-errors.js';
import { OWNER_SESSION_IDLE_SECONDS } from '../../owner/owner-sessions.js';
import type { LatchClient } from '../../client/latch-client.js';
import type { Approval } from '../../client/types.js';
import { reportApprovalError } from '../approvals/approval-errors.js';
import { cardLabels } from '../approvals/card-labels.js';
import { passphraseIsSet, terminalKeys } from '../approvals/owner-input.js';
import { writeLine, type CliIo, type Command } from '../command.js';
import { stringFlag } from '../daemon-calls/command-args.js';
import { refuseAgentFlag } from '../common-options.js';
import { newCliClient } from '../daemon-calls/daemon-call-command.js';
import { approvalLines } from '../daemon-calls/approval-views.js';
import { printable } from '../daemon-calls/views.js';
import { EXIT } from '../exit-codes.js';
import { parseFlags } from '../flags.js';
import type { KeyInput } from '../terminal/key-input.js';
import { InputEnded, PromptInterrupted, PromptWithdrawn, readChoice, readSecret, readText } from '../terminal/prompts.js';
import { outcomeLine } from './approvals.js';
import { RefusalFeed } from '../approvals/refusal-feed.js';

/** How often the list is asked for: fast enough that a waiting agent is not kept long. */
export const WATCH_POLL_MS = 1000;
/** Refusals are looked for every this many polls (they read the audit log's tail). */
const REFUSAL_LOOK_EVERY = 3;
// The most pending approvals one poll reads; more are shown as the first ones are decided.
const WATCH_PAGE_MAX = 100;

/** `latch approvals watch` shows each new pending request and asks what to do with it. */
export const approvalsWatchCommand: Command = {
  name: 'approvals watch',
  summary: 'Stay open: show each new request as it arrives and approve, deny or skip it',
  usage: `Usage: latch approvals watch [--json]

Stays open on the terminal and polls the daemon every second for pending approvals. Each new one
is shown with its full terms (agent, card label and id, merchant, amount and type, kind, how long
it is valid, recurring terms, the rule that asked and why), then:

  Approve, deny or skip? [a/d/s]   one key; a asks for the approval passphrase (not shown) when one
                                   is set, the first time: it opens an owner session that the next
                                   approvals use until none has been made for 5 minutes (it lives
                                   in this process only and ends when the watch stops); d asks for
                                   an optional reason; s leaves it pending.

Each request the policy, the pause or the lockout refuses while it watches is shown as one line
("Refused: shopper asked for 24.00 USD at shop.example.com: policy_denied (rule monthly): …"),
from the daemon's audit log, within a few seconds.

Requests that expire or are decided elsewhere (the console, latch approve or deny) are reported as
they disappear; a question on the screen is withdrawn within a second when its request is decided
elsewhere, and the watch goes on. A daemon restart, an
unreachable daemon or a rotated token is survived: it keeps polling and says when it is back.
Ctrl-C stops it. Standard input must be a terminal (for scripts: latch approvals, approve, deny).

Options:
  --json         print each decided approval as one JSON line on stdout; everything else, the
                 terms and the questions included, goes to stderr
  --agent NAME   refused (exit 7, agent_not_permitted): only the owner approves and denies

Exit codes: 0 stopped with Ctrl-C (or end of input); 2 bad usage or not a terminal; 7 --agent given; 1 anything else.`,
  async run(args, io) {
    let client: LatchClient | undefined;
    let approver: LatchClient | undefined;
    let keys: KeyInput | undefined;
    const stop = stopController();
    let json = false;
    try {
      const flags = parseFlags(args, { json: 'boolean', agent: 'value' });
      json = flags['json'] === true;
      refuseAgentFlag('approvals watch', stringFlag(flags, 'agent'));
      keys = terminalKeys(io, 'approvals watch is interactive; scripts use latch approvals, approve and deny');
      const terminal = keys;
      // With --json the words for people, prompts included, go to stderr; stdout keeps the decisions.
      const words = json ? { ...io, stdout: io.stderr } : io;
      // In the separate-user setup the polls need the session too: asked on the watch's own
      // terminal, at the start and again if the session reaches its lifetime (docs/decisions.md §30).
      client = newCliClient(io, undefined, { ownerPassphrase: () => readSecret(terminal, words.stdout, 'Owner passphrase (not shown): ') });
      // Approvals go through a client of their own, which holds the watch's owner session; the
      // polls go with the token, so they do not keep the session from idling out (§21.8). With
      // no token to poll with (the separate-user setup), one client does both.
      approver = client.systemDaemon !== undefined ? client : newCliClient(io);
      keys.onInterrupt(stop.stop);
      keys.start();
      await new Watch(client, approver, keys, words, stop, (decided) => {
        if (json) writeLine(io.stdout, JSON.stringify(decided));
      }).run();
      writeLine(words.stdout, 'Stopped watching.');
      return EXIT.ok;
    } catch (error) {
      if (error instanceof PromptInterrupted || error instanceof InputEnded) {
        writeLine(json ? io.stderr : io.stdout, 'Stopped watching.');
        return EXIT.ok;
      }
      return reportApprovalError(error, io, 'approvals watch', json);
    } finally {
      // The watch's owner session, if it opened one, ends with it: before the signal handlers go,
      // so that a second Ctrl-C meanwhile cannot kill the process with the session still open.
      await approver?.endOwnerSession().catch(() => undefined);
      stop.dispose();
      keys?.stop();
      approver?.close();
      if (client !== approver) client?.close();
    }
  },
};

interface StopController {
  stopped(): boolean;
  stop(): void;
  /** sleep waits ms, or less when stopped meanwhile. */
  sleep(ms: number): Promise<void>;
  dispose(): void;
}

/** stopController ends the watch at Ctrl-C (a key in raw mode) or at SIGINT/SIGTERM from outside. */
function stopController(): StopController {
  let stopped = false;
  let wake: (() => void) | undefined;
  const stop = (): void => {
    stopped = true;
    wake?.();
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  return {
    stopped: () => stopped,
    stop,
    sleep: (ms) =>
      stopped
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
            const timer = setTimeout(done, ms);
            function done(): void {
              clearTimeout(timer);
              wake = undefined;
              resolve();
            }
            wake = done;
          }),
    dispose: () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
    },
  };
}

/** Watch is one watching session: what was shown, what was skipped, whether the daemon answers. */
class Watch {
  /** Every approval already put in front of the owner: never asked about twice. */
  private readonly shown = new Set<string>();
  /** Skipped ones still pending, so their disappearance can be reported. */
  private readonly skipped = new Map<string, Approval>();
  /** The code of the last failure to list, reported once until the daemon answers again. */
  private problem: string | undefined;

  constructor(
    private readonly client: LatchClient,
    /** The client that approves: it holds the owner session, which nothing else uses. */
    private readonly approver: LatchClient,
    private readonly keys: KeyInput,
    private readonly io: CliIo,
    private readonly stop: StopController,
    private readonly decided: (approval: Approval) => void = () => undefined,
  ) {}

  async run(): Promise<void> {
    // Where the audit log ends is read before the watch says it watches: a refusal right after
    // that line is one the owner was told they would see.
    const refusals = new RefusalFeed(this.client);
    await refusals.start();
    this.say('Watching for requests that need your approval, and for what is refused. Ctrl-C stops.');
    for (let round = 0; !this.stop.stopped(); round++) {
      // What the policy, the pause or the lockout refused meanwhile (issue 44 item 3).
      if (round % REFUSAL_LOOK_EVERY === 0) for (const line of await refusals.news()) this.say(line);
      const pending = await this.poll();
      if (pending !== undefined) {
        await this.reportGone(new Set(pending.map((a) => a.approval_id)));
        // Oldest first: the list is newest first.
        for (const approval of [...pending].reverse()) {
          if (this.stop.stopped()) break;
          if (this.shown.has(approval.approval_id)) continue;
          this.shown.add(approval.approval_id);
          await this.present(approval);
        }
      }
      await this.stop.sleep(WATCH_POLL_MS);
    }
  }

  /** poll returns the pending approvals, or undefined after reporting (once) why it cannot. */
  private async poll(): Promise<Approval[] | undefined> {
    try {
      const { approvals } = await this.client.approvals({ status: 'pending_approval', limit: WATCH_PAGE_MAX });
      if (this.problem !== undefined) this.say('The daemon answers again; watching.');
      this.problem = undefined;
      return approvals;
    } catch (error) {
      if (!(error instanceof LatchClientError)) throw error;
      if (this.problem !== error.code) this.say(printable(`Cannot list approvals (${error.code}): ${error.message} Still trying every second.`));
      this.problem = error.code;
      return undefined;
    }
  }

  /** reportGone says which skipped requests are no longer pending, and what became of them. */
  private async reportGone(pendingIds: ReadonlySet<string>): Promise<void> {
    for (const id of [...this.skipped.keys()]) {
      if (pendingIds.has(id)) continue;
      this.skipped.delete(id);
      const state = await this.client.approval(id).then((a) => a.status, () => 'gone');
      this.say(printable(`${id} is no longer pending: ${state === 'expired' ? 'it expired' : `it was ${state} elsewhere`}.`));
    }
  }

  /** present shows one request and acts on the owner's answer; a wrong passphrase asks again. */
  private async present(approval: Approval): Promise<void> {
    const id = approval.approval_id;
    this.say('');
    this.say('New request waiting for your approval:');
    for (const line of approvalLines(approval, (await cardLabels(this.client)).get(approval.request.card_id ?? ''))) this.say(`  ${line}`);
    for (;;) {
      const asked = await this.ask(id);
      if (asked.choice === undefined) {
        this.say(printable(`${id} is no longer pending: ${asked.state === 'expired' ? 'it expired' : `it was ${asked.state} elsewhere`}. Nothing to decide here.`));
        return;
      }
      const choice = asked.choice;
      if (choice === 's') {
        this.skipped.set(id, approval);
        this.say(printable(`Skipped ${id}: it stays pending (latch approve ${id} or latch deny ${id} later).`));
        return;
      }
      try {
        const decided = choice === 'a' ? await this.approve(id) : await this.deny(id);
        this.say(outcomeLine(decided));
        this.decided(decided);
        return;
      } catch (error) {
        if (!(error instanceof LatchClientError)) throw error;
        if (error.code === 'invalid_passphrase') {
          this.say('Wrong passphrase; nothing was approved.');
          continue;
        }
        if (error.code === 'approval_not_pending' || error.code === 'approval_not_found') {
          this.say(printable(`${id} is no longer pending (expired or decided elsewhere).`));
          return;
        }
        this.say(printable(`Could not decide ${id}: ${error.specClass} (${error.code}): ${error.message}`));
        this.skipped.set(id, approval);
        return;
      }
    }
  }

  /**
   * ask puts the question, and keeps asking the daemon about the approval while it waits: when the
   * approval leaves pending_approval (decided in the console or with latch approve/deny, or
   * expired), the question is withdrawn and the state it reached is returned instead of a choice.
   */
  private async ask(id: string): Promise<{ choice: 'a' | 'd' | 's'; state?: undefined } | { choice?: undefined; state: string }> {
    const withdrawn = new AbortController();
    let state = 'pending_approval';
    let asking = true;
    let timer: NodeJS.Timeout | undefined;
    let wake: (() => void) | undefined;
    const watching = (async () => {
      while (asking) {
        await new Promise<void>((resolve) => {
          wake = resolve;
          timer = setTimeout(resolve, WATCH_POLL_MS);
        });
        if (!asking) return;
        // A failed look (the daemon restarting, say) leaves the question up; the next look may answer.
        const now = await this.client.approval(id).then((a) => a.status, () => undefined);
        if (now !== undefined && now !== 'pending_approval' && asking) {
          state = now;
          withdrawn.abort();
          return;
        }
      }
    })();
    try {
      return { choice: await readChoice(this.keys, this.io.stdout, 'Approve, deny or skip? [a/d/s] ', ['a', 'd', 's'] as const, undefined, withdrawn.signal) };
    } catch (error) {
      if (error instanceof PromptWithdrawn) return { state };
      throw error;
    } finally {
      // The answer (or the withdrawal) ends the look-ups at once: no wait for the next tick.
      asking = false;
      clearTimeout(timer);
      wake?.();
      await watching;
    }
  }

  /**
   * approve approves as the owner with presence. With a passphrase set, the first approval asks
   * for it and opens an owner session on the approving client (in this process's memory only,
   * ended when the watch stops: docs/decisions.md §21.8), so the owner deciding a run of requests
   * types it once. Only approvals use the session, so it ends once no approval has been made for
   * the daemon's idle limit (5 minutes), or at its lifetime, or at a restart; the passphrase is then
   * asked for again. A refused session never reached a route, so approving again is safe.
   */
  private async approve(id: string): Promise<Approval> {
    // No passphrase (any more): the token approves, and a session opened before has no use.
    if (!passphraseIsSet(this.client.home)) return this.client.approve(id, {});
    if (!this.approver.hasOwnerSession()) await this.openSession();
    try {
      return await this.approver.approve(id, {});
    } catch (error) {
      if (!(error instanceof LatchClientError) || error.status !== 401 || this.approver.hasOwnerSession()) throw error;
      this.say('The owner session has ended; approving asks for the passphrase again.');
      await this.openSession();
      return this.approver.approve(id, {});
    }
  }

  private async openSession(): Promise<void> {
    const passphrase = await readSecret(this.keys, this.io.stdout, 'Approval passphrase (not shown): ');
    const opened = await this.approver.openOwnerSession(passphrase);
    this.say(printable(`Owner session open for this watch: the next approvals ask no passphrase until none has been made for ${OWNER_SESSION_IDLE_SECONDS / 60} minutes (at the latest ${opened.expires_at}). It ends when the watch stops.`));
  }

  private async deny(id: string): Promise<Approval> {
    const reason = (await readText(this.keys, this.io.stdout, 'Reason (optional, Enter for none): ')).trim();
    return this.client.deny(id, reason === '' ? {} : { reason });
  }

  private say(line: string): void {
    writeLine(this.io.stdout, line);
  }
}

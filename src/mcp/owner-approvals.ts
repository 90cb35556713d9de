/**
 * Approvals where the person already is (shared/spec/mcp-approvals.md, docs/decisions.md §37):
 * when a payment tool ends in a pending approval and the client declared URL-mode elicitation,
 * the person is asked, through the client, to open the console's page for that approval; the tool
 * call then waits for the owner's decision (or mcp_approval_wait_seconds). One watcher per
 * approval sees the decision and sends notifications/elicitation/complete, whether or not a tool
 * call still waits for it.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Approval } from '../client/types.js';
import type { Logger } from '../log/logger.js';
import { approvalMessage, type CardName } from './approval-terms.js';
import type { ClientRequests } from './client-requests.js';
import type { ToolClient } from './tools.js';

/** How long the client has to answer elicitation/create before the tool returns the pending approval. */
export const ELICITATION_ANSWER_MS = 10_000;
/** A waiting call that carried a progressToken hears from the server at least this often. */
export const PROGRESS_EVERY_MS = 5_000;
/** Each look at the daemon holds on this long for the decision (GET /approvals/:id with Prefer: wait). */
const WATCH_CHUNK_SECONDS = 8;
/** Watchers held at once: past this, a pending approval is returned at once, as without URL mode. */
const WATCHES_MAX = 16;
/** A watcher gives up after this many failed looks in a row (the daemon went away). */
const WATCH_FAILURES_MAX = 5;

export interface OwnerApprovalOptions {
  /** The console's page for one approval: its origin and the approval id, nothing else. */
  approvalUrl(approvalId: string): string;
  /** How long a tool call waits for the decision once the person accepted. */
  waitSeconds: number;
  log: Logger;
}

/** What the tool call that asked is told to do. */
export interface CallWait {
  signal: AbortSignal;
  /** Called while waiting, at least every PROGRESS_EVERY_MS. */
  progress?: (elapsedSeconds: number) => void;
}

interface Watch {
  readonly elicitationId: string;
  /** Resolves with the decided approval, or undefined when watching stopped without one. */
  readonly decided: Promise<Approval | undefined>;
}

/** elicitationIdFor derives the elicitation's id from the approval's: one approval, one question. */
export function elicitationIdFor(approvalId: string): string {
  return `latch-approval-${approvalId}`;
}

/** OwnerApprovals asks the person through the client and watches for the owner's decisions. */
export class OwnerApprovals {
  private readonly watches = new Map<string, Watch>();
  private readonly asking = new Map<string, Promise<boolean>>();
  private readonly stop = new AbortController();

  constructor(
    private readonly requests: ClientRequests,
    private readonly options: OwnerApprovalOptions,
  ) {}

  /**
   * awaitDecision asks the person about a pending approval (once per approval while a question is
   * open) and waits for the decision: the decided approval, or undefined when the person declined,
   * the client did not answer, the wait ran out or the call was cancelled.
   */
  async awaitDecision(client: ToolClient, pending: Approval, call: CallWait): Promise<Approval | undefined> {
    // The wait counts from now, the question's time included, so that the whole call stays under
    // the client's request timeout (the SDK's 60 s default against the default 50 s).
    const deadlineMs = Date.now() + this.options.waitSeconds * 1000;
    const id = pending.approval_id;
    let watch = this.watches.get(id);
    if (watch === undefined) {
      // A question already on its way for this approval is shared, not asked again.
      let asking = this.asking.get(id);
      if (asking === undefined) {
        if (this.watches.size + this.asking.size >= WATCHES_MAX) return undefined;
        asking = this.ask(client, pending, call.signal).finally(() => this.asking.delete(id));
        this.asking.set(id, asking);
      }
      if (!(await asking)) return undefined;
      // The first caller to get here starts the watcher; the others find it.
      watch = this.watches.get(id) ?? this.startWatch(client, id);
    }
    return this.waitFor(watch, call, deadlineMs);
  }

  /** ask sends the one elicitation/create for an approval and reports whether the person accepted. */
  private async ask(client: ToolClient, pending: Approval, signal: AbortSignal): Promise<boolean> {
    const id = pending.approval_id;
    const params = { mode: 'url', elicitationId: elicitationIdFor(id), url: this.options.approvalUrl(id), message: approvalMessage(pending, await cardNameOf(client, pending)) };
    const answer = await this.requests.request('elicitation/create', params, ELICITATION_ANSWER_MS, signal);
    const action = answer.kind === 'result' ? answer.result['action'] : undefined;
    this.options.log.info('mcp_elicitation', { approval_id: id, answer: answer.kind === 'result' ? String(action).slice(0, 16) : answer.kind });
    return action === 'accept';
  }

  /** close stops every watcher (the session ended). */
  close(): void {
    this.stop.abort();
  }

  private startWatch(client: ToolClient, approvalId: string): Watch {
    const elicitationId = elicitationIdFor(approvalId);
    const decided = watchApproval(client, approvalId, this.stop.signal).then((approval) => {
      this.watches.delete(approvalId);
      if (approval !== undefined) this.requests.notify('notifications/elicitation/complete', { elicitationId });
      return approval;
    });
    const watch = { elicitationId, decided };
    this.watches.set(approvalId, watch);
    return watch;
  }

  private waitFor(watch: Watch, call: CallWait, deadlineMs: number): Promise<Approval | undefined> {
    const waitMs = deadlineMs - Date.now();
    if (waitMs <= 0 || call.signal.aborted) return Promise.resolve(undefined);
    const startedMs = Date.now();
    return new Promise((resolve) => {
      const finish = (approval: Approval | undefined): void => {
        clearTimeout(deadline);
        clearInterval(ticker);
        call.signal.removeEventListener('abort', onAbort);
        resolve(approval);
      };
      const onAbort = (): void => finish(undefined);
      const deadline = setTimeout(() => finish(undefined), waitMs);
      const ticker = setInterval(() => call.progress?.(Math.floor((Date.now() - startedMs) / 1000)), PROGRESS_EVERY_MS);
      call.signal.addEventListener('abort', onAbort, { once: true });
      void watch.decided.then(finish);
    });
  }
}

/** cardNameOf looks up the card's label and last four digits for the message; without them the card id alone names it. */
async function cardNameOf(client: ToolClient, approval: Approval): Promise<CardName | undefined> {
  const cardId = approval.request.card_id;
  if (typeof cardId !== 'string') return undefined;
  try {
    const card = await client.card(cardId);
    return { label: card.label, last4: card.last4 };
  } catch {
    return undefined;
  }
}

/** watchApproval looks at the approval until it is decided (approved, denied, expired, failed) or stop aborts. */
async function watchApproval(client: ToolClient, approvalId: string, stop: AbortSignal): Promise<Approval | undefined> {
  let failures = 0;
  while (!stop.aborted) {
    try {
      const approval = await client.approval(approvalId, { waitSeconds: WATCH_CHUNK_SECONDS });
      failures = 0;
      if (approval.status !== 'pending_approval') return approval;
    } catch {
      if (++failures >= WATCH_FAILURES_MAX) return undefined;
      // An aborted pause rejects; the loop's condition then ends the watch.
      await sleep(1000, undefined, { signal: stop }).catch(() => undefined);
    }
  }
  return undefined;
}

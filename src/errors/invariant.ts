/**
 * Invariants asserted where they must hold (docs/decisions.md §33, TigerStyle): a broken one
 * means memory no longer matches what is on disk or what was promised, and continuing would sign
 * or acknowledge on broken state. So a failed invariant does not throw into a request handler that
 * might answer 500 and carry on: it stops the process, after one log line that names the
 * invariant and carries no secret (the detail is a fact about ids and counts, never a value the
 * caller chose to keep private).
 *
 * Usage: `invariant(entry.state === 'active', 'ledger_entry_active_when_signed', policyId)`.
 * Tests that mean to see a failure install a handler with `onInvariantBroken` and restore it.
 */

/** Every invariant by name, with the sentence docs/decisions.md §33 and SECURITY.md list. */
export const INVARIANTS = {
  state_commit_applied_before_append: 'A state record is applied to memory in the same turn its append is queued (commit), and is owned by a registered state machine.',
  state_snapshot_covers_appended: 'A compaction snapshot is taken only from applied state that covers every record appended before it.',
  ledger_entry_well_formed: 'A new ledger entry is committed active with nothing used, and the record that completes an entry being signed carries the terms it was indexed with.',
  ledger_state_change_from_active: 'A ledger state change is committed only for an active entry that is not being signed: a settled entry never changes again, so budgets neither revive nor lose it.',
  approval_decided_once: 'An approval is decided only from pending_approval, once, and its decision keeps its id and request.',
  audit_anchor_monotonic: 'The audit anchor recorded in state.journal only moves forward.',
  signing_purpose_entered: 'A signing purpose is entered only with the state its caller promised: the ledger entry, terms, call, key and tag the purpose signs for (src/signer/entered.ts).',
} as const;

export type InvariantName = keyof typeof INVARIANTS;

/** InvariantBroken is what the handler receives: the invariant's name and a secret-free detail. */
export class InvariantBroken extends Error {
  constructor(
    readonly invariant: InvariantName,
    readonly detail: string,
  ) {
    super(`invariant broken: ${invariant}${detail === '' ? '' : ` (${detail})`}`);
    this.name = 'InvariantBroken';
  }
}

/** The process's exit status after a broken invariant (EX_SOFTWARE). */
export const INVARIANT_EXIT_CODE = 70;

type Handler = (broken: InvariantBroken) => never;

/** stopProcess writes one JSON line to stderr and exits non-zero: nothing more runs on broken state. */
const stopProcess: Handler = (broken) => {
  process.stderr.write(`${JSON.stringify({ level: 'fatal', event: 'invariant_broken', invariant: broken.invariant, detail: broken.detail, at: new Date().toISOString() })}\n`);
  process.exit(INVARIANT_EXIT_CODE);
};

let handler: Handler = stopProcess;

/**
 * onInvariantBroken replaces what a broken invariant does (tests and the crash simulator throw
 * instead of exiting) and returns a function that restores the previous handler.
 */
export function onInvariantBroken(replacement: (broken: InvariantBroken) => never): () => void {
  const previous = handler;
  handler = replacement;
  return () => {
    handler = previous;
  };
}

/** throwBroken is a handler for tests: the broken invariant is thrown. */
export const throwBroken = (broken: InvariantBroken): never => {
  throw broken;
};

/**
 * invariant stops the process (or calls the installed handler) unless condition holds. detail
 * must carry no secret: ids, counts and states only.
 */
export function invariant(condition: boolean, name: InvariantName, detail = ''): asserts condition {
  if (!condition) handler(new InvariantBroken(name, detail));
}

/**
 * Whether a policy from policy.json is in force, kept in state.journal so that it outlives the
 * daemon (docs/decisions.md §28.6). A daemon that loaded a policy keeps it while the file is
 * missing (§17.4); one started after the file went missing knows only this record, and refuses
 * (503 policy_invalid) until the file is back or `latch policy remove` says the removal was meant.
 * Before, a restart after `rm policy.json` allowed everything, without an audit line.
 */
import type { RecordStore, StateRecord } from '../core/record-store.js';

export const POLICY_IN_FORCE_RECORD_TYPE = 'policy_in_force';

/** The policy last in force: its SHA-256 and when the daemon loaded it (ms), or null once removed. */
export interface PolicyInForceState {
  sha256: string | null;
  atMs: number;
}

/** PolicyInForce remembers durably which file policy is in force. */
export class PolicyInForce {
  private known: PolicyInForceState | undefined;

  constructor(
    private readonly store: RecordStore,
    private readonly writeFailed: (error: unknown) => void,
  ) {
    store.register({
      recordTypes: [POLICY_IN_FORCE_RECORD_TYPE],
      apply: (record) => {
        const sha256 = record['sha256'];
        const atMs = record['at_ms'];
        if ((sha256 !== null && typeof sha256 !== 'string') || !Number.isSafeInteger(atMs)) throw new Error('malformed policy_in_force record');
        const before = this.known;
        this.known = { sha256, atMs: atMs as number };
        return () => (this.known = before);
      },
      live: () => (this.known === undefined ? [] : [recordOf(this.known)]),
    });
  }

  /** current is the policy last in force (sha256 null: removed by `latch policy remove`), if any. */
  current(): PolicyInForceState | undefined {
    return this.known;
  }

  /**
   * note records that the policy with sha256 (null: none) is in force from atMs. It never delays
   * the request that noticed it: the record joins the journal's next group commit, and a write that
   * fails is reported.
   */
  note(sha256: string | null, atMs: number): void {
    if (this.known?.sha256 === sha256) return;
    // commit applies it in this turn; a failed write undoes it, so the next note tries again.
    this.store.commit(recordOf({ sha256, atMs })).catch(this.writeFailed);
  }
}

function recordOf(state: PolicyInForceState): StateRecord {
  return { type: POLICY_IN_FORCE_RECORD_TYPE, sha256: state.sha256, at_ms: state.atMs };
}

/**
 * The daemon's side of the audit anchor (src/datadir/audit-anchor.ts, docs/decisions.md §20): it
 * keeps the latest anchor in state.journal, checks the log against it at start, and moves it
 * forward as the daemon's own lines reach the disk.
 */
import { AUDIT_ANCHOR_RECORD, assertAuditAnchored, parseAnchor, raiseAuditFloor, type AuditAnchor } from '../datadir/audit-anchor.js';
import { invariant } from '../errors/invariant.js';
import type { StateRecord, StateStore } from '../datadir/state-store.js';

/** AuditAnchorKeeper owns the `audit_anchor` records of one daemon's state.journal. */
export interface AuditAnchorKeeper {
  /**
   * confirm checks audit.log against the anchor replayed from state.journal (and config.json's
   * enrollment), throwing a DataDirError that stops the start, then records where the log ends
   * as the new anchor. Call it once the store is open, before serving.
   */
  confirm(): Promise<void>;
  /**
   * note moves the anchor to a line that is on disk (an append the writer acknowledged). Writes
   * are coalesced and spaced by ANCHOR_INTERVAL_MS, so that the anchor costs a signature no fsync
   * of its own: at most one is in flight, and it carries the latest line noted meanwhile. A failed
   * write is left for the next one; the anchor only ever lags, never leads.
   */
  note(anchor: AuditAnchor): void;
  /** flush writes the latest noted line now; the daemon calls it as it closes, before the store. */
  flush(): Promise<void>;
}

/**
 * How often the anchor may be written while the daemon signs. A crash loses at most this much of
 * the anchor's progress: lines written in that time are still guarded by audit.head, only not by
 * state.journal (docs/decisions.md §20).
 */
export const ANCHOR_INTERVAL_MS = 1000;

/** auditAnchorKeeper registers the record type on store; call it before the store opens. */
export function auditAnchorKeeper(home: string, store: StateStore, warn: (event: string, fields: Record<string, string>) => void): AuditAnchorKeeper {
  let stored: AuditAnchor | undefined;
  let wanted: AuditAnchor | undefined;
  const record = (anchor: AuditAnchor): StateRecord => ({ type: AUDIT_ANCHOR_RECORD, seq: anchor.seq, hash: anchor.hash });
  // A state machine (src/core/record-store.ts): the anchor moves only forward, at replay and live.
  store.register({
    recordTypes: [AUDIT_ANCHOR_RECORD],
    apply(replayed) {
      const anchor = parseAnchor(replayed as { seq?: unknown; hash?: unknown });
      if (anchor === undefined) throw new TypeError('malformed audit anchor');
      const before = stored;
      if (before !== undefined && anchor.seq < before.seq) return () => undefined;
      stored = anchor;
      return () => (stored = before);
    },
    live: () => (stored === undefined ? [] : [record(stored)]),
  });

  let lastWriteMs = Number.NEGATIVE_INFINITY;
  let timer: NodeJS.Timeout | undefined;
  let inFlight: Promise<void> | undefined;

  const write = async (joinsNext: boolean): Promise<void> => {
    while (wanted !== undefined && (stored === undefined || wanted.seq > stored.seq)) {
      const next = wanted;
      lastWriteMs = Date.now();
      invariant(stored === undefined || next.seq > stored.seq, 'audit_anchor_monotonic', `seq ${next.seq}`);
      try {
        // While signing, it rides on the next ledger record's datasync instead of paying its own (§41).
        await store.commit(record(next), { joinsNext });
      } catch (error) {
        // The store refuses while closing or when the disk fails; the next note tries again.
        warn('audit_anchor_not_recorded', { seq: String(next.seq), detail: error instanceof Error ? error.message : String(error) });
        return;
      }
      raiseAuditFloor(home, next);
    }
  };
  /** joinsNext: the anchor waits for the next ledger record's write (while signing), not at start or stop. */
  const writeNow = (joinsNext = false): Promise<void> => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    inFlight ??= write(joinsNext).finally(() => (inFlight = undefined));
    return inFlight;
  };

  return {
    async confirm() {
      const end = assertAuditAnchored(home, stored);
      if (stored !== undefined) raiseAuditFloor(home, stored);
      if (end.seq >= 1) {
        wanted = { seq: end.seq, hash: end.hash };
        await writeNow();
      }
    },
    note(anchor) {
      if (wanted !== undefined && anchor.seq <= wanted.seq) return;
      wanted = anchor;
      if (inFlight !== undefined || timer !== undefined) return;
      const waitMs = lastWriteMs + ANCHOR_INTERVAL_MS - Date.now();
      if (waitMs <= 0) void writeNow(true);
      else timer = setTimeout(() => void writeNow(true), waitMs).unref();
    },
    async flush() {
      await inFlight;
      await writeNow();
    },
  };
}

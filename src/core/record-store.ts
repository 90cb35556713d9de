/**
 * The durable record store as the core sees it: what src/datadir/state-store.ts's StateStore
 * offers, declared here so the core depends on no storage code (tests pass their own, or none).
 *
 * Every durable store is a state machine (docs/decisions.md §33): it names the record types it
 * owns and has ONE `apply(record)`, run both when state.journal is replayed and live. A live
 * change is made only by `store.commit(record)`, which applies the record to memory and queues
 * its append in the same turn, then resolves once it is on disk; a failed append runs the undo
 * apply returned. Nothing but commit writes a record, so no compaction (which writes the applied
 * state) can be taken between a record's append and the memory change it stands for.
 */

/** One durable record: a JSON object with a `type` field. */
export interface StateRecord {
  readonly type: string;
  readonly [field: string]: unknown;
}

/** Undo reverses one live apply whose append failed (never called for a replayed record). */
export type Undo = () => void;

/** A durable store: the record types it owns, its one apply, and what a compaction writes. */
export interface StateMachine {
  /** The record types this machine owns, each owned by exactly one machine. */
  readonly recordTypes: readonly string[];
  /**
   * apply checks one record of its types and changes memory by it, synchronously; it throws,
   * changing nothing, on a malformed record. It is the same code at replay and live.
   */
  apply(record: StateRecord, nowSeconds: number): Undo;
  /** live lists the records that rebuild the applied state now: what a compaction writes. */
  live(nowSeconds: number): StateRecord[];
}

/** RecordStore keeps typed records durably; register machines before it opens. */
export interface RecordStore {
  register(machine: StateMachine): void;
  /**
   * commit applies record to its machine and queues its append in one turn, and resolves once it
   * is on stable storage; on a failed append the apply is undone and commit rejects, and whatever
   * the record stands for must then not be acknowledged.
   */
  commit(record: StateRecord): Promise<void>;
}

/** NO_UNDO is the undo of an apply that changed nothing. */
export const NO_UNDO: Undo = () => undefined;

import { Journal } from '../../store/journal.js';
import { writeSnapshotFile } from './snapshot-file.js';
import { applyEvent, sealRecord } from './apply.js';
import type { JournalRecord, LedgerEvent } from './events.js';
import { openFromSnapshot, type LedgerStart } from './ledger-start.js';
import { encodeState, snapshotMeta } from './snapshot.js';
import type { SandboxState } from './state.js';

export { replay, type LedgerStart } from './ledger-start.js';

/** Txn is what one serialized operation sees: the state, the clocks of its moment, and emit. */
export interface Txn {
  readonly state: SandboxState;
  /** Ledger time (Unix seconds): the real clock plus the sandbox clock offset. */
  readonly now: number;
  /** Real time (Unix seconds), for what the sandbox clock must never move (signature freshness). */
  readonly realNow: number;
  /** emit applies an event to the state at once and adds it to this operation's journal record. */
  emit(event: LedgerEvent): void;
}

export interface LedgerOptions {
  journalPath: string;
  /** Base clock in milliseconds; the ledger clock is this plus the offset set by POST /v1/sandbox/clock. */
  now?: () => number;
  /** Runs at the start of every operation, in the same record (the expiry sweep). */
  beforeEach?: (txn: Txn) => void;
  /**
   * Where the state's snapshot lives (docs/decisions.md §15.9). With it, open starts from the
   * snapshot and replays only later records, and writeSnapshot() can replace it; without it the
   * whole journal is replayed at every start.
   */
  snapshotPath?: string;
}

/**
 * Ledger runs operations one at a time over the sandbox state and makes each durable. An
 * operation emits events; they are applied as emitted, written to the journal as one record and
 * fsynced before the operation's result is returned. Because every decision waits its turn, 50
 * concurrent charges on one window see each other's effects: exactly one can be approved.
 */
export class Ledger {
  private tail: Promise<unknown> = Promise.resolve();
  private failure: Error | undefined;
  private closed = false;
  /** The seq the newest snapshot covers (0: none), and the snapshot being written, if any. */
  private snapshotSeq: number;
  /** The seq of the last snapshot attempted, written or not: a failing disk is not retried every tick. */
  private attemptedSeq: number;
  private snapshotting: Promise<boolean> | undefined;

  private constructor(
    private readonly journal: Journal,
    private readonly current: SandboxState,
    private readonly clockMs: () => number,
    private readonly beforeEach: ((txn: Txn) => void) | undefined,
    private readonly snapshotPath: string | undefined,
    /** How this start found its state: from a snapshot or the whole journal, and what it replayed. */
    readonly start: LedgerStart,
  ) {
    this.snapshotSeq = start.snapshotSeq;
    this.attemptedSeq = start.snapshotSeq;
  }

  /**
   * open restores the state (from the snapshot when there is a good one that the journal
   * continues, else by replaying the whole journal at journalPath, created when absent) and
   * returns the ledger. Damage before the journal's last record refuses with JournalCorruptError.
   */
  static async open(options: LedgerOptions): Promise<Ledger> {
    const opened = await openFromSnapshot(options.journalPath, options.snapshotPath);
    return new Ledger(opened.journal, opened.state, options.now ?? Date.now, options.beforeEach, options.snapshotPath, opened.start);
  }

  /** Bytes of a torn last record dropped when the journal was opened. */
  get droppedBytes(): number {
    return this.start.droppedBytes;
  }

  /** recordsSinceSnapshot counts the committed records since the last snapshot was written or attempted. */
  recordsSinceSnapshot(): number {
    return this.current.seq - this.attemptedSeq;
  }

  /**
   * writeSnapshot takes the state between two operations, waits until the journal holds every
   * record in it, and atomically replaces the snapshot file. It resolves false when there is
   * nothing new to cover, no snapshot path, or one is already being written. Encoding the state
   * holds the operations queue for that long (about 2 s for a million records here).
   */
  writeSnapshot(): Promise<boolean> {
    if (this.snapshotPath === undefined || this.snapshotting !== undefined) return Promise.resolve(false);
    const snapshotPath = this.snapshotPath;
    const taken = this.tail.then(() => {
      if (this.failure !== undefined || this.closed) throw new Error('The sandbox ledger has stopped; no snapshot is taken.');
      const lastFrame = this.journal.lastFrame;
      if (this.current.seq === this.snapshotSeq || lastFrame === undefined) return undefined;
      return { seq: this.current.seq, meta: snapshotMeta(this.current.seq, lastFrame), body: encodeState(this.current) };
    });
    this.tail = taken.then(
      () => undefined,
      () => undefined,
    );
    this.snapshotting = (async () => {
      try {
        const snapshot = await taken;
        if (snapshot === undefined) return false;
        this.attemptedSeq = snapshot.seq;
        // Only records already on disk may be covered: a snapshot never holds an unacknowledged change.
        await this.journal.synced();
        await writeSnapshotFile(snapshotPath, snapshot.meta, snapshot.body);
        this.snapshotSeq = snapshot.seq;
        return true;
      } finally {
        this.snapshotting = undefined;
      }
    })();
    return this.snapshotting;
  }

  /** state is the live state; read it only inside run() or when nothing is running. */
  get state(): Readonly<SandboxState> {
    return this.current;
  }

  /** now returns the ledger time in Unix seconds. */
  now(): number {
    return Math.floor(this.clockMs() / 1000) + this.current.clock_offset_seconds;
  }

  /**
   * run queues task behind every earlier operation and resolves with its result once its events
   * are on disk. A task that throws still commits what it emitted before throwing (the sweep).
   */
  run<T>(task: (txn: Txn) => T): Promise<T> {
    // Operations run one at a time, but the next one does not wait for the disk: each answer
    // waits until the journal holds everything up to and including what that operation saw.
    const executed = this.tail.then(() => this.execute(task));
    this.tail = executed.then(
      () => undefined,
      () => undefined,
    );
    return executed.then(async (outcome) => {
      await outcome.durable;
      if (outcome.failed) throw outcome.thrown;
      return outcome.value as T;
    });
  }

  /** close waits for queued operations and closes the journal. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.tail;
    await this.snapshotting?.catch(() => false);
    await this.journal.close();
  }

  private execute<T>(task: (txn: Txn) => T): { value: T | undefined; thrown: unknown; failed: boolean; durable: Promise<void> } {
    if (this.failure !== undefined || this.closed) throw new Error('The sandbox ledger has stopped; restart it to replay the journal.');
    const events: LedgerEvent[] = [];
    const txn: Txn = {
      state: this.current,
      now: this.now(),
      realNow: Math.floor(Date.now() / 1000),
      emit: (event) => {
        try {
          applyEvent(this.current, event);
        } catch (error) {
          // The state may be half-changed; nothing more is decided until a restart replays the journal.
          this.failure = error as Error;
          throw error;
        }
        events.push(event);
      },
    };
    let value: T | undefined;
    let thrown: unknown;
    let failed = false;
    try {
      this.beforeEach?.(txn);
      value = task(txn);
    } catch (error) {
      thrown = error;
      failed = true;
    }
    // A read also waits: what it saw may include changes that are not on disk yet.
    const durable = events.length > 0 ? this.commit(txn, events) : this.journal.synced();
    return { value, thrown, failed, durable };
  }

  private commit(txn: Txn, events: LedgerEvent[]): Promise<void> {
    const record: JournalRecord = { seq: this.current.seq + 1, at: txn.now, real_at: txn.realNow, events };
    const payload = new TextEncoder().encode(JSON.stringify(record));
    sealRecord(this.current, record);
    return this.journal.append(payload).catch((error: unknown) => {
      // Memory is now ahead of the disk: stop deciding rather than acknowledge what may be lost.
      this.failure = error as Error;
      throw error;
    });
  }
}

import { Journal } from '../../store/journal.js';
import { apply, applyEvent, sealRecord } from './apply.js';
import type { JournalRecord, LedgerEvent } from './events.js';
import { emptyState, type SandboxState } from './state.js';

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

  private constructor(
    private readonly journal: Journal,
    private readonly current: SandboxState,
    private readonly clockMs: () => number,
    private readonly beforeEach: ((txn: Txn) => void) | undefined,
    /** Bytes of a torn last record dropped when the journal was opened. */
    readonly droppedBytes: number,
  ) {}

  /** open replays the journal at journalPath (creating it when absent) and returns the ledger. */
  static async open(options: LedgerOptions): Promise<Ledger> {
    const { journal, contents } = await Journal.open(options.journalPath);
    try {
      const state = replay(contents.payloads);
      return new Ledger(journal, state, options.now ?? Date.now, options.beforeEach, contents.droppedBytes);
    } catch (error) {
      await journal.close();
      throw error;
    }
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

/** replay folds the journal's records into a fresh state with apply(). */
export function replay(payloads: readonly Uint8Array[]): SandboxState {
  const state = emptyState();
  const decoder = new TextDecoder('utf-8', { fatal: true });
  for (const payload of payloads) apply(state, JSON.parse(decoder.decode(payload)) as JournalRecord);
  return state;
}

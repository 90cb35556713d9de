/**
 * The daemon's durable state, `$LATCH_HOME/state.journal`: what must survive a crash or a
 * `kill -9` between two requests (today the signed-window idempotency memory). Each record is one
 * JSON object with a `type` field in one journal frame (src/store/journal.ts), appended and
 * fsynced before the answer it backs leaves the daemon, replayed into memory when the daemon
 * starts, and dropped at the next compaction once its owner no longer lists it as live.
 *
 * Every store in it is a state machine (src/core/record-store.ts, docs/decisions.md §33). To add one:
 * 1. Choose new `type` names and record shapes of plain JSON values; never reuse a name.
 * 2. Before open(), `store.register(machine)`: `machine.recordTypes` names its types,
 *    `machine.apply(record, nowSeconds)` checks one record (throw to refuse a malformed one) and
 *    changes memory by it, returning how to undo that; it runs at replay and live alike.
 *    `machine.live(nowSeconds)` returns the records that rebuild its applied state, which
 *    compaction writes in place of everything else.
 * 3. `await store.commit(record)` before acknowledging whatever the record stands for: commit
 *    applies it and queues its append in one turn, so memory and the queue never disagree while a
 *    compaction is taken; a failed append undoes the apply.
 * A record of a type nobody registered refuses the start: it may stand for something this
 * version would otherwise silently forget.
 */
import { DataDirError, shellQuote } from './data-dir-error.js';
import { assertPrivate, assertPrivateStats } from './permissions.js';
import { Journal, JournalCorruptError, JournalLimitError, type JournalLimits } from '../store/journal.js';
import type { FileSystemPort } from '../store/file-system.js';
import { invariant } from '../errors/invariant.js';

import type { RecordStore, StateMachine, StateRecord, Undo } from '../core/record-store.js';

export type { StateMachine, StateRecord, Undo } from '../core/record-store.js';

/** The state journal's limits: small records, and a file compacted long before it gets large. */
export const STATE_JOURNAL_LIMITS: JournalLimits = {
  recordBytesMax: 64 * 1024,
  fileBytesMax: 512 * 1024 * 1024,
  compactionBytesMin: 4 * 1024 * 1024,
};

const TYPE_PATTERN = /^[a-z][a-z0-9_]{0,63}$/;

/** StateStore is the typed-record layer over the daemon's journal; nothing touches the disk before open(). */
export class StateStore implements RecordStore {
  private readonly machines = new Map<string, StateMachine>();
  /** Records applied live by commit since open; every one was handed to the journal in the same turn. */
  private committed = 0;
  /** The commits queued and not yet durable, oldest first, with their undo. */
  private readonly undoable: Array<{ undo: Undo; undone: boolean }> = [];
  private journal: Journal | undefined;
  private state: 'new' | 'open' | 'closed' = 'new';
  private compacting: Promise<void> | undefined;

  constructor(
    readonly file: string,
    private readonly nowSeconds: () => number = () => Math.floor(Date.now() / 1000),
    private readonly limits: JournalLimits = STATE_JOURNAL_LIMITS,
    /** Told of a compaction that failed (the journal stays usable; the next append tries again). */
    private readonly compactionFailed: (error: unknown) => void = () => undefined,
    /** Where the journal's file operations go: the real file system unless the crash simulator's. */
    private readonly files?: FileSystemPort,
  ) {}

  /** register makes machine responsible for records of its types; only before open(). */
  register(machine: StateMachine): void {
    for (const type of machine.recordTypes) {
      if (this.state !== 'new' || this.machines.has(type) || !TYPE_PATTERN.test(type)) throw new Error(`cannot register state record type ${type}`);
    }
    for (const type of machine.recordTypes) this.machines.set(type, machine);
  }

  /**
   * open refuses an unsafe file (a symbolic link, another owner, group or other access) with a
   * DataDirError naming it and its fix, creates it (O_EXCL, 0600) when missing, replays every
   * record to its owner and compacts away what is no longer live.
   */
  async open(): Promise<void> {
    if (this.state !== 'new') throw new Error('StateStore.open() may be called once');
    this.state = 'open';
    assertPrivate(this.file, 'file');
    const now = this.nowSeconds();
    let opened: Awaited<ReturnType<typeof Journal.open>>;
    try {
      opened = await Journal.open(this.file, { limits: this.limits, checkFile: (stats) => assertPrivateStats(stats, this.file, 'file'), ...(this.files !== undefined && { files: this.files }) });
    } catch (error) {
      this.state = 'closed';
      throw asDataDirError(error, this.file);
    }
    const { journal, contents } = opened;
    try {
      for (const [index, payload] of contents.payloads.entries()) this.replayOne(payload, index, now);
    } catch (error) {
      this.state = 'closed';
      await journal.close();
      throw error;
    }
    this.journal = journal;
    this.committed = journal.appended;
    const live = this.snapshot(now);
    if (live.length < contents.payloads.length) await this.compactNow(live);
  }

  /**
   * commit applies record to the machine that owns its type and queues its append, in one turn,
   * then resolves once it is on disk. It rejects with a DataDirError (503
   * data_directory_unavailable to a caller) when the store is not open, the record is beyond the
   * limits, or the disk refused; the apply is then undone, and whatever the record stands for must
   * not be acknowledged. A malformed record throws from apply before anything is queued.
   * `joinsNext` (the audit anchor's record) shares the next record's datasync (docs/decisions.md §41).
   */
  async commit(record: StateRecord, options: { joinsNext?: boolean } = {}): Promise<void> {
    const journal = this.journal;
    if (this.state !== 'open' || journal === undefined) {
      throw new DataDirError('write_failed', this.file, 'The state journal is not open', 'start the daemon with listen() before serving requests');
    }
    const machine = this.machines.get(record.type);
    invariant(machine !== undefined, 'state_commit_applied_before_append', `unregistered record type ${record.type}`);
    const payload = Buffer.from(JSON.stringify(record), 'utf8');
    const undo = machine.apply(record, this.nowSeconds());
    // Queued in the same turn as the apply: a compaction taken from now on writes the applied
    // state, which holds this record, and the journal writes the record before that snapshot.
    const queuedBefore = journal.appended;
    const durable = journal.append(payload, options);
    // A record refused at once (beyond the limits, a broken journal) was not queued: undone below.
    if (journal.appended > queuedBefore) this.committed += 1;
    const pending = { undo, undone: false };
    this.undoable.push(pending);
    try {
      await durable;
    } catch (error) {
      this.undoFrom(pending);
      throw asDataDirError(error, this.file);
    } finally {
      const at = this.undoable.indexOf(pending);
      if (at !== -1) this.undoable.splice(at, 1);
    }
    if (journal.compactionDue() && this.compacting === undefined) {
      // A failed compaction leaves the journal usable; the next commit tries again. It is reported.
      this.compacting = this.compactNow(this.snapshot(this.nowSeconds()))
        .catch((error: unknown) => this.compactionFailed(error))
        .finally(() => (this.compacting = undefined));
    }
  }

  /**
   * undoFrom undoes a failed commit and every commit queued after it, newest first, so memory
   * goes back to what it was before the failed one: a write that fails breaks the journal, and
   * every record queued behind it fails too, so their undos would otherwise run oldest first and
   * leave the later records' "before" in place.
   */
  private undoFrom(failed: { undo: Undo; undone: boolean }): void {
    const at = this.undoable.indexOf(failed);
    const later = at === -1 ? [failed] : this.undoable.slice(at);
    for (const pending of later.reverse()) {
      if (pending.undone) continue;
      pending.undone = true;
      pending.undo();
    }
  }

  /** close waits for queued writes and closes the file; later appends are refused. */
  async close(): Promise<void> {
    if (this.state === 'closed') return;
    this.state = 'closed';
    await this.compacting;
    await this.journal?.close();
  }

  private replayOne(payload: Buffer, index: number, now: number): void {
    let record: unknown;
    try {
      record = JSON.parse(payload.toString('utf8'));
    } catch {
      record = undefined;
    }
    const type = typeof record === 'object' && record !== null && !Array.isArray(record) ? (record as { type?: unknown }).type : undefined;
    const machine = typeof type === 'string' ? this.machines.get(type) : undefined;
    if (machine === undefined) throw corrupt(this.file, `Record ${index + 1} has an unknown or missing type`);
    try {
      machine.apply(record as StateRecord, now);
    } catch {
      throw corrupt(this.file, `Record ${index + 1} (type ${type as string}) is malformed`);
    }
  }

  /**
   * snapshot lists the live records of every machine, taken from applied state. Every record the
   * journal queued before it went through commit, which applied it first: the counts agree, or a
   * record was written that no machine applied and the snapshot would drop it.
   */
  private snapshot(now: number): StateRecord[] {
    const journal = this.journal as Journal;
    invariant(journal.appended === this.committed, 'state_snapshot_covers_appended', `${journal.appended} records appended, ${this.committed} applied`);
    return [...new Set(this.machines.values())].flatMap((machine) => machine.live(now));
  }

  private async compactNow(live: StateRecord[]): Promise<void> {
    await (this.journal as Journal).compact(live.map((record) => Buffer.from(JSON.stringify(record), 'utf8')));
  }
}

function corrupt(file: string, problem: string): DataDirError {
  return new DataDirError(
    'corrupt',
    file,
    `${problem}; refusing to start rather than forget it`,
    `move it aside to start with no remembered state: mv ${shellQuote(file)} ${shellQuote(`${file}.damaged`)}`,
  );
}

/** asDataDirError names the file and the fix for the journal's failures; a DataDirError passes through. */
function asDataDirError(error: unknown, file: string): unknown {
  if (error instanceof DataDirError) return error;
  if (error instanceof JournalCorruptError) return corrupt(file, `The state journal is damaged at byte ${error.offset}, before its last record`);
  if (error instanceof JournalLimitError) {
    return new DataDirError('too_large', file, error.limit === 'record_bytes' ? 'A state record is larger than the state journal accepts' : 'The state journal has reached its size limit', `report this; moving the file aside forgets the remembered state: mv ${shellQuote(file)} ${shellQuote(`${file}.full`)}`);
  }
  const code = (error as NodeJS.ErrnoException).code ?? 'unknown';
  if (code === 'ELOOP') return new DataDirError('symlink', file, 'Refusing a data file that is a symbolic link', `replace the link with a regular file: rm ${shellQuote(file)}`);
  return new DataDirError('write_failed', file, `The state journal could not be written (${code})`, 'check the disk (free space, errors) and restart the daemon');
}

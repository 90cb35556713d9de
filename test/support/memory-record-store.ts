/**
 * A RecordStore in memory, for core tests: commit applies the record to its state machine and
 * then appends it, as StateStore does; the records are kept as written (JSON copies). The
 * records given to the constructor and those written so far are replayed into each machine as it
 * registers, like state.journal after a restart. Tests replace `append` to make the disk fail or wait.
 */
import type { RecordStore, StateMachine, StateRecord } from '../../src/core/record-store.js';

/** What a test may still ask of one record type's owner: replay a record, list the live ones. */
export interface RecordOwnerView {
  replay(record: StateRecord, nowSeconds: number): void;
  live(nowSeconds: number): StateRecord[];
}

export class MemoryRecordStore implements RecordStore {
  readonly owners = new Map<string, RecordOwnerView>();
  readonly records: StateRecord[] = [];
  private readonly machinesByType = new Map<string, StateMachine>();

  constructor(
    private readonly replayed: readonly StateRecord[] = [],
    private readonly nowSeconds: () => number = () => 0,
  ) {}

  /** append is what commit queues after the apply; a test replaces it. */
  append: (record: StateRecord) => Promise<void> = async (record) => {
    this.records.push(JSON.parse(JSON.stringify(record)) as StateRecord);
  };

  register(machine: StateMachine): void {
    const view: RecordOwnerView = { replay: (record, now) => void machine.apply(record, now), live: (now) => machine.live(now) };
    for (const type of machine.recordTypes) {
      this.owners.set(type, view);
      this.machinesByType.set(type, machine);
    }
    for (const record of [...this.replayed, ...this.records]) if (machine.recordTypes.includes(record.type)) machine.apply(record, this.nowSeconds());
  }

  commit(record: StateRecord): Promise<void> {
    const machine = this.machinesByType.get(record.type);
    if (machine === undefined) return Promise.reject(new Error(`unregistered state record type ${record.type}`));
    const undo = machine.apply(record, this.nowSeconds());
    return this.append(record).catch((error: unknown) => {
      undo();
      throw error;
    });
  }
}

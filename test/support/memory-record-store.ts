/** A RecordStore in memory, for core tests: records are kept as written, never replayed. */
import type { RecordStore, StateRecord, StateRecordOwner } from '../../src/core/record-store.js';

export class MemoryRecordStore implements RecordStore {
  readonly owners = new Map<string, StateRecordOwner>();
  readonly records: StateRecord[] = [];
  register(type: string, owner: StateRecordOwner): void {
    this.owners.set(type, owner);
  }
  async append(record: StateRecord): Promise<void> {
    this.records.push(record);
  }
}

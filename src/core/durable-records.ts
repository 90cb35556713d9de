/**
 * What the core needs of durable storage: typed records appended and fsynced before the answer
 * they back, replayed into memory at start. The daemon's state journal (src/store/state-store.ts)
 * provides it; the core names only this interface, so it stays free of files and paths.
 */

/** One durable record: a `type` and plain JSON fields. */
export interface StateRecord {
  readonly type: string;
  readonly [field: string]: unknown;
}

/** The code that owns one record type: rebuilds memory from it and says which records are live. */
export interface StateRecordOwner {
  replay(record: StateRecord, nowSeconds: number): void;
  live(nowSeconds: number): StateRecord[];
}

/** Durable records as the core uses them. */
export interface DurableRecords {
  /** register claims a record type before the records are opened. */
  register(type: string, owner: StateRecordOwner): void;
  /** append writes a record durably; it resolves once the record is on disk. */
  append(record: StateRecord): Promise<void>;
}

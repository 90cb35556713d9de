/**
 * The durable record store as the core sees it: what src/datadir/state-store.ts's StateStore
 * offers, declared here so the core depends on no storage code (tests pass their own, or none).
 */

/** One durable record: a JSON object with a `type` field. */
export interface StateRecord {
  readonly type: string;
  readonly [field: string]: unknown;
}

/** The code that owns one record type: rebuilds memory from it and says which records are live. */
export interface StateRecordOwner {
  replay(record: StateRecord, nowSeconds: number): void;
  live(nowSeconds: number): StateRecord[];
}

/** RecordStore keeps typed records durably; register owners before it opens, append before acknowledging. */
export interface RecordStore {
  register(type: string, owner: StateRecordOwner): void;
  append(record: StateRecord): Promise<void>;
}

/**
 * The sandbox ledger's snapshot (docs/decisions.md §15.9): the whole state as JSON lines, with
 * the journal record it covers, so that a start replays only the records after it. The journal
 * stays the source of truth: a snapshot that is missing, damaged, or does not match the journal
 * is ignored and the whole journal is replayed.
 */
import type { FramePosition } from '../../store/journal.js';
import { accountScope, cardScope, indexCreated } from './creation-index.js';
import { indexExpiry } from './expiry-index.js';
import { emptyState, type SandboxState } from './state.js';

/** The snapshot's file name inside the sandbox data directory, beside the journal. */
export const SNAPSHOT_FILE = 'journal.snapshot';
const FORMAT = 'latch-sandbox-snapshot';
const VERSION = 1;
/** Entries per body line, so that no line is one enormous string. */
const ENTRIES_PER_LINE = 2_000;

/** The state's collections in the order they are written; a line naming another is damage. The creation indexes are derived again at load. */
const MAPS = ['accounts', 'cards', 'devices', 'device_by_key_id', 'setup_tokens', 'authorizations', 'transactions', 'idempotency', 'nonces', 'settled_by_card_day', 'held_by_card_day'] as const;
type MapName = (typeof MAPS)[number];
const SETS = ['active_authorizations'] as const;

/** What a snapshot's meta says it covers. */
export interface SnapshotMeta {
  format: typeof FORMAT;
  version: typeof VERSION;
  /** The seq of the last journal record the state includes. */
  seq: number;
  /** Where that record's frame starts in the journal, and its checksum (hex). */
  journal_offset: number;
  journal_checksum: string;
}

/** snapshotMeta describes a state whose last record is the journal frame at lastFrame. */
export function snapshotMeta(seq: number, lastFrame: FramePosition): SnapshotMeta {
  return { format: FORMAT, version: VERSION, seq, journal_offset: lastFrame.offset, journal_checksum: lastFrame.checksum.toString('hex') };
}

/** readSnapshotMeta checks a snapshot's meta and returns what it covers, or throws on anything else. */
export function readSnapshotMeta(meta: unknown): { seq: number; resumeAfter: FramePosition } {
  const fields = meta as Partial<SnapshotMeta> | null;
  if (typeof fields !== 'object' || fields === null || fields.format !== FORMAT || fields.version !== VERSION) throw new Error('not a sandbox snapshot of this version');
  const { seq, journal_offset: offset, journal_checksum: checksum } = fields;
  if (!Number.isSafeInteger(seq) || (seq as number) < 1 || !Number.isSafeInteger(offset) || (offset as number) < 0 || typeof checksum !== 'string' || !/^[0-9a-f]{64}$/.test(checksum)) {
    throw new Error('snapshot meta out of shape');
  }
  return { seq: seq as number, resumeAfter: { offset: offset as number, checksum: Buffer.from(checksum, 'hex') } };
}

/** encodeState writes state as lines: the scalars, then each collection in chunks of entries. */
export function encodeState(state: Readonly<SandboxState>): Buffer[] {
  const lines: Buffer[] = [Buffer.from(`${JSON.stringify({ seq: state.seq, clock_offset_seconds: state.clock_offset_seconds })}\n`)];
  for (const name of MAPS) {
    const entries = [...(state[name] as Map<string, unknown>).entries()];
    for (let at = 0; at < entries.length; at += ENTRIES_PER_LINE) lines.push(Buffer.from(`${JSON.stringify(mapLine(name, entries.slice(at, at + ENTRIES_PER_LINE)))}\n`));
  }
  for (const name of SETS) {
    const items = [...state[name]];
    for (let at = 0; at < items.length; at += ENTRIES_PER_LINE) lines.push(Buffer.from(`${JSON.stringify([name, items.slice(at, at + ENTRIES_PER_LINE)])}\n`));
  }
  return lines;
}

/**
 * mapLine writes a chunk of a map as `[name, fields, rows]`. When every value is an object with
 * the same keys in the same order (transactions, authorizations ...), the keys are written once
 * and each row is `[key, ...values]`, which makes the snapshot a third smaller and so faster to
 * hash and parse at start; otherwise fields is null and each row is `[key, value]`.
 */
function mapLine(name: string, entries: Array<[string, unknown]>): [string, string[] | null, unknown[][]] {
  const fields = sharedFields(entries.map(([, value]) => value));
  if (fields === null) return [name, null, entries];
  return [name, fields, entries.map(([key, value]) => [key, ...fields.map((field) => (value as Record<string, unknown>)[field])])];
}

/** sharedFields returns the keys every value has, in the same order, or null when they differ or a value is not a plain object. */
function sharedFields(values: readonly unknown[]): string[] | null {
  const first = values[0];
  if (typeof first !== 'object' || first === null || Array.isArray(first)) return null;
  const fields = Object.keys(first);
  for (const value of values) {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
    const keys = Object.keys(value);
    if (keys.length !== fields.length || keys.some((key, index) => key !== fields[index] || (value as Record<string, unknown>)[key] === undefined)) return null;
  }
  return fields;
}

/** decodeState rebuilds a state from encodeState's lines, keeping every collection's order; throws on anything out of shape. */
export function decodeState(body: Buffer): SandboxState {
  const state = emptyState();
  let start = 0;
  let first = true;
  while (start < body.length) {
    const end = body.indexOf(0x0a, start);
    if (end === -1) throw new Error('snapshot body ends inside a line');
    const line = JSON.parse(body.subarray(start, end).toString('utf8')) as unknown;
    start = end + 1;
    if (first) {
      first = false;
      const scalars = line as { seq?: unknown; clock_offset_seconds?: unknown };
      if (!Number.isSafeInteger(scalars.seq) || !Number.isSafeInteger(scalars.clock_offset_seconds)) throw new Error('snapshot scalars out of shape');
      state.seq = scalars.seq as number;
      state.clock_offset_seconds = scalars.clock_offset_seconds as number;
      continue;
    }
    if (!Array.isArray(line) || !Array.isArray(line[line.length - 1])) throw new Error('snapshot line out of shape');
    const name: unknown = line[0];
    if (line.length === 2 && (SETS as readonly unknown[]).includes(name)) {
      for (const item of line[1] as unknown[]) {
        if (typeof item !== 'string') throw new Error('snapshot set entry out of shape');
        state.active_authorizations.add(item);
      }
      continue;
    }
    if (line.length !== 3 || !(MAPS as readonly unknown[]).includes(name)) throw new Error('snapshot names an unknown collection');
    readMapLine(state[name as MapName] as Map<string, unknown>, line[1], line[2] as unknown[]);
  }
  if (first) throw new Error('snapshot body is empty');
  rebuildIndexes(state);
  return state;
}

/** readMapLine adds the rows of one mapLine to map, rebuilding objects from the shared fields when there are some. */
function readMapLine(map: Map<string, unknown>, fields: unknown, rows: unknown[]): void {
  if (fields !== null && (!Array.isArray(fields) || fields.some((field) => typeof field !== 'string' || field === '__proto__'))) throw new Error('snapshot fields out of shape');
  const width = fields === null ? 2 : (fields as string[]).length + 1;
  for (const row of rows) {
    if (!Array.isArray(row) || row.length !== width || typeof row[0] !== 'string') throw new Error('snapshot map entry out of shape');
    if (fields === null) {
      map.set(row[0], row[1]);
      continue;
    }
    const value: Record<string, unknown> = {};
    (fields as string[]).forEach((field, index) => {
      value[field] = row[index + 1];
    });
    map.set(row[0], value);
  }
}

/** rebuildIndexes derives the creation-order indexes from the maps' order, as apply built them, and the expiry index from the active windows. */
function rebuildIndexes(state: SandboxState): void {
  for (const authorization of state.authorizations.values()) {
    const scopes = [accountScope(authorization.account_id)];
    if (authorization.card_id !== null) scopes.push(cardScope(authorization.account_id, authorization.card_id));
    indexCreated(state.authorization_index, authorization.policy_id, scopes);
    if (state.active_authorizations.has(authorization.policy_id)) indexExpiry(state.expiry_index, authorization.not_after, authorization.policy_id);
  }
  for (const transaction of state.transactions.values()) {
    if (transaction.account_id !== null) indexCreated(state.transaction_index, transaction.id, [accountScope(transaction.account_id), cardScope(transaction.account_id, transaction.card_id)]);
  }
}

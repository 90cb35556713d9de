/**
 * The sandbox ledger's snapshot (docs/decisions.md §15.9): the whole state as JSON lines, with
 * the journal record it covers, so that a start replays only the records after it. The journal
 * stays the source of truth: a snapshot that is missing, damaged, or does not match the journal
 * is ignored and the whole journal is replayed.
 */
import type { FramePosition } from '../../store/journal.js';
import { accountScope, cardScope, indexCreated } from './creation-index.js';
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
  const chunked = (name: string, items: readonly unknown[]): void => {
    for (let at = 0; at < items.length; at += ENTRIES_PER_LINE) lines.push(Buffer.from(`${JSON.stringify([name, items.slice(at, at + ENTRIES_PER_LINE)])}\n`));
  };
  for (const name of MAPS) chunked(name, [...(state[name] as Map<string, unknown>).entries()]);
  for (const name of SETS) chunked(name, [...state[name]]);
  return lines;
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
    if (!Array.isArray(line) || line.length !== 2 || !Array.isArray(line[1])) throw new Error('snapshot line out of shape');
    const [name, items] = line as [unknown, unknown[]];
    if ((SETS as readonly unknown[]).includes(name)) {
      for (const item of items) {
        if (typeof item !== 'string') throw new Error('snapshot set entry out of shape');
        state.active_authorizations.add(item);
      }
      continue;
    }
    if (!(MAPS as readonly unknown[]).includes(name)) throw new Error('snapshot names an unknown collection');
    const map = state[name as MapName] as Map<string, unknown>;
    for (const entry of items) {
      if (!Array.isArray(entry) || entry.length !== 2 || typeof entry[0] !== 'string') throw new Error('snapshot map entry out of shape');
      map.set(entry[0], entry[1]);
    }
  }
  if (first) throw new Error('snapshot body is empty');
  rebuildIndexes(state);
  return state;
}

/** rebuildIndexes derives the creation-order indexes from the maps' order, as apply built them. */
function rebuildIndexes(state: SandboxState): void {
  for (const authorization of state.authorizations.values()) {
    const scopes = [accountScope(authorization.account_id)];
    if (authorization.card_id !== null) scopes.push(cardScope(authorization.account_id, authorization.card_id));
    indexCreated(state.authorization_index, authorization.policy_id, scopes);
  }
  for (const transaction of state.transactions.values()) {
    if (transaction.account_id !== null) indexCreated(state.transaction_index, transaction.id, [accountScope(transaction.account_id), cardScope(transaction.account_id, transaction.card_id)]);
  }
}

/**
 * Idempotent signing of policy windows (docs/decisions.md §9). A caller retrying /authorize,
 * /merchant-bind or /recurring with the same Idempotency-Key must make the daemon send the cloud
 * the same request again: a window signed afresh carries a new policy_id, nonce and times, so
 * the cloud would see another body under the same key and refuse the retry with 422, although
 * the caller did exactly what docs/decisions.md §9 asks. The cache remembers, per device key and
 * caller key, which request produced which signed window, so the retry re-sends that window and
 * the cloud replays its first answer.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { LatchError } from '../errors/latch-error.js';
import { NO_UNDO, type RecordStore, type StateRecord, type Undo } from './record-store.js';
import type { SignedWindow } from './window-payload.js';

/** As long as the cloud keeps its idempotency records (docs/decisions.md §9). */
export const SIGNED_WINDOW_TTL_SECONDS = 24 * 60 * 60;
/** At most this many remembered windows; the oldest goes first. */
export const SIGNED_WINDOWS_MAX = 10_000;
/** The state journal's record type of one remembered window. */
export const SIGNED_WINDOW_RECORD_TYPE = 'signed_window';

/**
 * One remembered window in the state journal. The request is kept as its fingerprint's SHA-256,
 * which is all a comparison needs; the window itself went to the cloud and holds no secret.
 */
interface SignedWindowRecord extends StateRecord {
  type: typeof SIGNED_WINDOW_RECORD_TYPE;
  scope: string;
  idempotency_key: string;
  fingerprint_sha256: string;
  stored_at: number;
  window: { payload: SignedWindow['payload']; jws: string; key_id: string };
}

interface Entry {
  fingerprint: string;
  signed: Promise<SignedWindow>;
  storedAt: number;
  /** The window's policy id, once it is signed. */
  policyId?: string;
  /** The record handed to the store; set once its append is under way, so compaction keeps it. */
  record?: SignedWindowRecord;
}

/**
 * SignedWindowCache maps (key id, Idempotency-Key) to the request fingerprint and its signed
 * window. With a RecordStore it is durable: a window is in the state journal before signOnce
 * hands it out, and the windows of the last 24 h are replayed when the daemon starts, so a retry
 * after a restart or a kill -9 re-sends the same window.
 */
export class SignedWindowCache {
  private readonly entries = new Map<string, Entry>();
  /** The signOnce whose record is being committed in this turn (its apply completes that entry). */
  private committing: Promise<SignedWindow> | undefined;

  constructor(
    private readonly ttlSeconds = SIGNED_WINDOW_TTL_SECONDS,
    private readonly entriesMax = SIGNED_WINDOWS_MAX,
    private readonly store?: RecordStore,
  ) {
    store?.register({ recordTypes: [SIGNED_WINDOW_RECORD_TYPE], apply: (record, nowSeconds) => this.apply(record, nowSeconds), live: (nowSeconds) => this.live(nowSeconds) });
  }

  /** durable makes a cache with the default bounds whose windows live in store (register before store.open()). */
  static durable(store: RecordStore): SignedWindowCache {
    return new SignedWindowCache(SIGNED_WINDOW_TTL_SECONDS, SIGNED_WINDOWS_MAX, store);
  }

  /**
   * signOnce returns the window signed earlier under this key for the same request, or signs a
   * new one with `sign`, makes it durable and remembers it. The same key with another request is
   * idempotency_key_reused, as the cloud would answer.
   */
  signOnce(scope: string, idempotencyKey: string, fingerprint: string, nowSeconds: number, sign: () => Promise<SignedWindow>): Promise<SignedWindow> {
    this.forgetExpired(nowSeconds);
    const id = entryId(scope, idempotencyKey);
    const digest = fingerprintDigest(fingerprint);
    const found = this.entries.get(id);
    if (found !== undefined) {
      if (found.fingerprint !== digest) return Promise.reject(new LatchError('idempotency_key_reused'));
      return found.signed;
    }
    const signed: Promise<SignedWindow> = sign().then((window) => this.persist(id, signed, { scope, idempotencyKey, digest, nowSeconds }, window));
    // A window whose audit line or state record failed was never handed out; a retry signs afresh.
    signed.catch(() => {
      if (this.entries.get(id)?.signed === signed) this.entries.delete(id);
    });
    this.remember(id, { fingerprint: digest, signed, storedAt: nowSeconds });
    return signed;
  }

  /**
   * forget drops the window remembered under this key if it is the one with policyId (a window
   * rolled back, never to be sent: docs/decisions.md §17.1), so the next request with the key is
   * decided and signed afresh. Memory only: the authorization ledger holds the rollback durably,
   * and a window replayed after a restart is refused by it again.
   */
  forget(scope: string, idempotencyKey: string, policyId: string): void {
    const id = entryId(scope, idempotencyKey);
    if (this.entries.get(id)?.policyId === policyId) this.entries.delete(id);
  }

  /** size is the number of remembered windows (for tests). */
  get size(): number {
    return this.entries.size;
  }

  /** persist appends the window's record to the store, if any, before the window is handed out. */
  private async persist(id: string, signed: Promise<SignedWindow>, request: { scope: string; idempotencyKey: string; digest: string; nowSeconds: number }, window: SignedWindow): Promise<SignedWindow> {
    const signedEntry = this.entries.get(id);
    if (signedEntry?.signed === signed) signedEntry.policyId = window.payload.policy_id;
    if (this.store === undefined) return window;
    const record: SignedWindowRecord = {
      type: SIGNED_WINDOW_RECORD_TYPE,
      scope: request.scope,
      idempotency_key: request.idempotencyKey,
      fingerprint_sha256: request.digest,
      stored_at: request.nowSeconds,
      window: { payload: window.payload, jws: window.jws, key_id: window.keyId },
    };
    // Applied (marked live) in the turn its append is queued, so a compaction keeps it either way.
    this.committing = signed;
    let durable: Promise<void>;
    try {
      durable = this.store.commit(record);
    } finally {
      this.committing = undefined;
    }
    await durable;
    return window;
  }

  private remember(id: string, entry: Entry): void {
    if (!this.entries.delete(id) && this.entries.size >= this.entriesMax) {
      const oldest = this.entries.keys().next();
      if (oldest.done !== true) this.entries.delete(oldest.value);
    }
    this.entries.set(id, entry);
  }

  /**
   * apply is the cache's one change, at replay and live: live, it marks the entry whose window is
   * being committed as recorded (compaction keeps it); replayed, it remembers the window.
   */
  private apply(record: StateRecord, nowSeconds: number): Undo {
    const window = parseRecord(record);
    const id = entryId(window.scope, window.idempotency_key);
    if (this.committing !== undefined) {
      const entry = this.entries.get(id);
      // The entry was replaced meanwhile (forgotten and asked again): the record is written, not kept.
      if (entry?.signed !== this.committing) return NO_UNDO;
      entry.record = window;
      return () => delete entry.record;
    }
    if (window.stored_at + this.ttlSeconds <= nowSeconds) return NO_UNDO;
    const signed: SignedWindow = { payload: window.window.payload, jws: window.window.jws, keyId: window.window.key_id };
    const entry: Entry = { fingerprint: window.fingerprint_sha256, signed: Promise.resolve(signed), storedAt: window.stored_at, policyId: signed.payload.policy_id, record: window };
    this.remember(id, entry);
    return () => {
      if (this.entries.get(id) === entry) this.entries.delete(id);
    };
  }

  private live(nowSeconds: number): StateRecord[] {
    const records: StateRecord[] = [];
    for (const entry of this.entries.values()) {
      if (entry.record !== undefined && entry.storedAt + this.ttlSeconds > nowSeconds) records.push(entry.record);
    }
    return records;
  }

  private forgetExpired(nowSeconds: number): void {
    // Insertion order is time order, so the scan stops at the first live entry.
    for (const [id, entry] of this.entries) {
      if (entry.storedAt + this.ttlSeconds > nowSeconds) return;
      this.entries.delete(id);
    }
  }
}

function entryId(scope: string, idempotencyKey: string): string {
  return `${scope}\u0000${idempotencyKey}`;
}

function fingerprintDigest(fingerprint: string): string {
  return bytesToHex(sha256(new TextEncoder().encode(fingerprint)));
}

/** parseRecord checks a replayed record's shape and throws on anything else. */
function parseRecord(record: StateRecord): SignedWindowRecord {
  const window = record['window'] as Record<string, unknown> | null | undefined;
  const ok =
    typeof record['scope'] === 'string' &&
    typeof record['idempotency_key'] === 'string' &&
    typeof record['fingerprint_sha256'] === 'string' &&
    Number.isSafeInteger(record['stored_at']) &&
    typeof window === 'object' &&
    window !== null &&
    typeof window['payload'] === 'object' &&
    window['payload'] !== null &&
    typeof window['jws'] === 'string' &&
    typeof window['key_id'] === 'string';
  if (!ok) throw new Error('malformed signed_window record');
  return record as SignedWindowRecord;
}

/** requestFingerprint identifies an operation and its validated input, independent of key order. */
export function requestFingerprint(operation: string, input: object): string {
  const record = input as Record<string, unknown>;
  const sorted = Object.keys(record)
    .sort()
    .map((name) => [name, record[name]]);
  return `${operation}\n${JSON.stringify(sorted)}`;
}

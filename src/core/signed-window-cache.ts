/**
 * Idempotent signing of policy windows (decisions §9). A caller retrying /authorize,
 * /merchant-bind or /recurring with the same Idempotency-Key must make the daemon send the cloud
 * the same request again: a window signed afresh carries a new policy_id, nonce and times, so
 * the cloud would see another body under the same key and refuse the retry with 422, although
 * the caller did exactly what decisions §9 asks. The cache remembers, per device key and
 * caller key, which request produced which signed window, so the retry re-sends that window and
 * the cloud replays its first answer.
 */
import { LatchError } from '../errors/latch-error.js';
import type { SignedWindow } from './window-payload.js';

/** As long as the cloud keeps its idempotency records (decisions §9). */
export const SIGNED_WINDOW_TTL_SECONDS = 24 * 60 * 60;
/** At most this many remembered windows; the oldest goes first. */
export const SIGNED_WINDOWS_MAX = 10_000;

interface Entry {
  fingerprint: string;
  signed: Promise<SignedWindow>;
  storedAt: number;
}

/** SignedWindowCache maps (key id, Idempotency-Key) to the request fingerprint and its signed window. */
export class SignedWindowCache {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly ttlSeconds = SIGNED_WINDOW_TTL_SECONDS,
    private readonly entriesMax = SIGNED_WINDOWS_MAX,
  ) {}

  /**
   * signOnce returns the window signed earlier under this key for the same request, or signs a
   * new one with `sign` and remembers it. The same key with another request is
   * idempotency_key_reused, as the cloud would answer.
   */
  signOnce(scope: string, idempotencyKey: string, fingerprint: string, nowSeconds: number, sign: () => Promise<SignedWindow>): Promise<SignedWindow> {
    this.forgetExpired(nowSeconds);
    const id = `${scope}\u0000${idempotencyKey}`;
    const found = this.entries.get(id);
    if (found !== undefined) {
      if (found.fingerprint !== fingerprint) return Promise.reject(new LatchError('idempotency_key_reused'));
      return found.signed;
    }
    const signed = sign();
    // A window whose audit line failed was never handed out; a retry signs afresh.
    signed.catch(() => this.entries.delete(id));
    if (this.entries.size >= this.entriesMax) {
      const oldest = this.entries.keys().next();
      if (oldest.done !== true) this.entries.delete(oldest.value);
    }
    this.entries.set(id, { fingerprint, signed, storedAt: nowSeconds });
    return signed;
  }

  /** size is the number of remembered windows (for tests). */
  get size(): number {
    return this.entries.size;
  }

  private forgetExpired(nowSeconds: number): void {
    // Insertion order is time order, so the scan stops at the first live entry.
    for (const [id, entry] of this.entries) {
      if (entry.storedAt + this.ttlSeconds > nowSeconds) return;
      this.entries.delete(id);
    }
  }
}

/** requestFingerprint identifies an operation and its validated input, independent of key order. */
export function requestFingerprint(operation: string, input: object): string {
  const record = input as Record<string, unknown>;
  const sorted = Object.keys(record)
    .sort()
    .map((name) => [name, record[name]]);
  return `${operation}\n${JSON.stringify(sorted)}`;
}

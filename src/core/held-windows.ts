/**
 * Windows the owner's signing primitives made and the daemon holds, not yet registered
 * (docs/decisions.md §21). The /v1 proxy forwards a registration only for a window held here, and
 * takes it out as it forwards it, so each is sent at most once; a window signed anywhere else (with
 * a stolen copy of the key, say) never goes out through Latch. Durable in state.journal, so a
 * restart keeps both what is held and what was already sent.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { NO_UNDO, type RecordStore, type StateRecord, type Undo } from './record-store.js';

/** Where a held window may be registered: the card route or the account-wide one. */
export type HeldWindowRoute = '/v1/authorizations' | '/v1/policy-windows';

/** The state journal's record types: a window held, and a held window taken (sent or cancelled). */
export const HELD_WINDOW_RECORD_TYPE = 'held_window';
export const HELD_WINDOW_TAKEN_RECORD_TYPE = 'held_window_taken';

/** The most windows held at once; beyond it the oldest is dropped (its budget exposure stays until not_after). */
export const HELD_WINDOWS_MAX = 1000;

interface Held {
  policyId: string;
  jwsSha256: string;
  route: HeldWindowRoute;
  notAfterSeconds: number;
}

/** HeldWindows is the set of primitive windows not yet registered. */
export class HeldWindows {
  private readonly held = new Map<string, Held>();

  constructor(private readonly store: RecordStore) {
    // One state machine (record-store.ts) for both record types: a window held, and one taken.
    store.register({
      recordTypes: [HELD_WINDOW_RECORD_TYPE, HELD_WINDOW_TAKEN_RECORD_TYPE],
      apply: (record) => this.apply(record),
      // A taken window is simply absent from the live held_window records.
      live: (nowSeconds) => [...this.held.values()].filter((held) => held.notAfterSeconds > nowSeconds).map(heldRecord),
    });
  }

  /** hold keeps a window just signed, durably, before its JWS is answered. */
  async hold(policyId: string, jws: string, route: HeldWindowRoute, notAfterSeconds: number): Promise<void> {
    await this.store.commit(heldRecord({ policyId, jwsSha256: jwsDigest(jws), route, notAfterSeconds }));
  }

  /**
   * take returns the policy id of the held window whose JWS is exactly jws, registered at route,
   * and removes it durably so that it is forwarded at most once; undefined when none is held.
   */
  async take(jws: string, route: HeldWindowRoute, nowSeconds: number): Promise<string | undefined> {
    const digest = jwsDigest(jws);
    const found = [...this.held.values()].find((held) => held.jwsSha256 === digest && held.route === route && held.notAfterSeconds > nowSeconds);
    if (found === undefined) return undefined;
    // Out of memory in this turn (commit applies first), so a concurrent request with the same JWS finds nothing.
    await this.store.commit(takenRecord(found.policyId));
    return found.policyId;
  }

  /** drop forgets a held window (it was cancelled): it can never be forwarded. */
  async drop(policyId: string): Promise<boolean> {
    if (!this.held.has(policyId)) return false;
    await this.store.commit(takenRecord(policyId));
    return true;
  }

  /** isHeld reports whether policyId is a held window not yet registered. */
  isHeld(policyId: string): boolean {
    return this.held.has(policyId);
  }

  /** apply is the one change, at replay and live: a window held, or one taken; it returns the undo. */
  private apply(record: StateRecord): Undo {
    if (record.type === HELD_WINDOW_TAKEN_RECORD_TYPE) {
      const policyId = record['policy_id'];
      if (typeof policyId !== 'string') throw new Error('malformed held_window_taken record');
      const taken = this.held.get(policyId);
      if (taken === undefined) return NO_UNDO;
      this.held.delete(policyId);
      return () => this.held.set(policyId, taken);
    }
    const held = parseHeld(record);
    if (held === undefined) throw new Error('malformed held_window record');
    const previous = this.held.get(held.policyId);
    this.held.set(held.policyId, held);
    let evicted: Held | undefined;
    if (this.held.size > HELD_WINDOWS_MAX) {
      evicted = this.held.values().next().value as Held;
      this.held.delete(evicted.policyId);
    }
    return () => {
      if (previous === undefined) this.held.delete(held.policyId);
      else this.held.set(held.policyId, previous);
      if (evicted !== undefined) this.held.set(evicted.policyId, evicted);
    };
  }
}

function jwsDigest(jws: string): string {
  return bytesToHex(sha256(new TextEncoder().encode(jws)));
}

function takenRecord(policyId: string): StateRecord {
  return { type: HELD_WINDOW_TAKEN_RECORD_TYPE, policy_id: policyId };
}

function heldRecord(held: Held): StateRecord {
  return { type: HELD_WINDOW_RECORD_TYPE, policy_id: held.policyId, jws_sha256: held.jwsSha256, route: held.route, not_after: held.notAfterSeconds };
}

function parseHeld(record: StateRecord): Held | undefined {
  const { policy_id: policyId, jws_sha256: jwsSha256, route, not_after: notAfterSeconds } = record;
  if (typeof policyId !== 'string' || typeof jwsSha256 !== 'string' || !/^[0-9a-f]{64}$/.test(jwsSha256)) return undefined;
  if (route !== '/v1/authorizations' && route !== '/v1/policy-windows') return undefined;
  if (!Number.isSafeInteger(notAfterSeconds)) return undefined;
  return { policyId, jwsSha256, route, notAfterSeconds: notAfterSeconds as number };
}

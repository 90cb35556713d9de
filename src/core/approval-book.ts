/**
 * The approval book: every approval, durable in the state journal. A new approval and every
 * decision are committed as a whole snapshot before anyone is answered, and the newest snapshot of
 * each id wins on replay, so a pending approval acknowledged with 202 — and its decision —
 * survive a restart or a kill -9. It is a state machine (record-store.ts): its one apply runs at
 * replay and, through store.commit, live, in the turn the record is queued, so no compaction can
 * write the book without a decision already on its way to the disk (docs/decisions.md §33).
 */
import { APPROVAL_STATUSES, type Approval } from './approval.js';
import type { AuthorizationRequest } from './authorization-request.js';
import { principalName, type Principal } from './principal.js';
import { invariant } from '../errors/invariant.js';
import type { RecordStore, StateRecord, Undo } from './record-store.js';

/** The state journal's record type of one approval snapshot. */
export const APPROVAL_RECORD_TYPE = 'approval';
/** At most this many approvals are kept; past it the oldest decided one is forgotten. */
export const APPROVALS_MAX = 10_000;
/** A decided approval is kept this long (30 days), for the list and for retries of its POST. */
export const DECIDED_APPROVAL_KEEP_SECONDS = 30 * 24 * 3600;

/** ApprovalBook holds the approvals in memory, mirrored in the state journal. */
export class ApprovalBook {
  private readonly byId = new Map<string, Approval>();
  private readonly byCallerKey = new Map<string, string>();
  private readonly waiters = new Map<string, Set<() => void>>();
  private readonly claimed = new Set<string>();

  constructor(private readonly store?: RecordStore) {
    store?.register({ recordTypes: [APPROVAL_RECORD_TYPE], apply: (record) => this.apply(parseApproval(record)), live: (nowSeconds) => this.live(nowSeconds) });
  }

  /**
   * claim makes one decision the only one under way for an approval: it returns false while
   * another holds it, so two concurrent approvals of one request sign exactly once.
   */
  claim(id: string): boolean {
    if (this.claimed.has(id)) return false;
    this.claimed.add(id);
    return true;
  }

  /** release ends a claim. */
  release(id: string): void {
    this.claimed.delete(id);
  }

  /** get returns the approval with this id, if any. */
  get(id: string): Approval | undefined {
    return this.byId.get(id);
  }

  /** findByCallerKey returns the approval a caller's POST with this Idempotency-Key created, if any. */
  findByCallerKey(principal: Principal, idempotencyKey: string): Approval | undefined {
    const id = this.byCallerKey.get(callerKeyId(principal, idempotencyKey));
    return id === undefined ? undefined : this.byId.get(id);
  }

  /**
   * add keeps a new approval durably. When a concurrent POST with the same caller key already
   * created one, that one is returned instead (checked and inserted in one synchronous step).
   */
  async add(approval: Approval): Promise<Approval> {
    if (approval.callerKey) {
      const existing = this.findByCallerKey(approval.principal, approval.idempotencyKey);
      if (existing !== undefined) return existing;
    }
    // A failed commit undoes the apply: never acknowledged, so never there; a retry creates it afresh.
    await this.commit(approval);
    return approval;
  }

  /**
   * update records a decision durably, then wakes everyone waiting for this approval. The
   * approval is decided once: only from pending_approval, keeping its id and request.
   */
  async update(approval: Approval): Promise<void> {
    const before = this.byId.get(approval.id);
    invariant(before !== undefined && before.status === 'pending_approval' && approval.status !== 'pending_approval' && before.requestSha256 === approval.requestSha256, 'approval_decided_once', approval.id);
    await this.commit(approval);
    const waiting = this.waiters.get(approval.id);
    this.waiters.delete(approval.id);
    for (const wake of waiting ?? []) wake();
  }

  /**
   * waitForChange resolves when the approval is updated, after ms, or when signal aborts,
   * whichever comes first.
   */
  waitForChange(id: string, ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const set = this.waiters.get(id) ?? new Set<() => void>();
      this.waiters.set(id, set);
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        set.delete(done);
        if (set.size === 0 && this.waiters.get(id) === set) this.waiters.delete(id);
        resolve();
      };
      const timer = setTimeout(done, Math.max(0, ms));
      signal?.addEventListener('abort', done, { once: true });
      set.add(done);
    });
  }

  /** pending lists the approvals still pending (for expiry sweeps). */
  pending(): Approval[] {
    return [...this.byId.values()].filter((approval) => approval.status === 'pending_approval');
  }

  /** newestFirst lists every approval kept, the newest first (a listing walks it: src/operations/). */
  newestFirst(): Approval[] {
    return [...this.byId.values()].reverse();
  }

  /** commit applies the approval to memory and queues its record in one turn (store.commit), or only applies it without a store. */
  private async commit(approval: Approval): Promise<void> {
    if (this.store === undefined) this.apply(approval);
    else await this.store.commit(toRecord(approval));
  }

  /** apply is the book's one change, at replay and live: the approval as recorded, or its undo. */
  private apply(approval: Approval): Undo {
    const before = this.byId.get(approval.id);
    const evicted = this.remember(approval);
    return () => {
      if (before === undefined) this.forget(approval);
      else this.byId.set(before.id, before);
      if (evicted !== undefined) this.byId.set(evicted.id, evicted);
    };
  }

  private remember(approval: Approval): Approval | undefined {
    // Map order is creation order: an update keeps the id's first place.
    const evicted = !this.byId.has(approval.id) && this.byId.size >= APPROVALS_MAX ? this.forgetOldestDecided() : undefined;
    this.byId.set(approval.id, approval);
    if (approval.callerKey) this.byCallerKey.set(callerKeyId(approval.principal, approval.idempotencyKey), approval.id);
    return evicted;
  }

  private forget(approval: Approval): void {
    this.byId.delete(approval.id);
    if (approval.callerKey) this.byCallerKey.delete(callerKeyId(approval.principal, approval.idempotencyKey));
  }

  private forgetOldestDecided(): Approval | undefined {
    for (const approval of this.byId.values()) {
      if (approval.status !== 'pending_approval') {
        this.forget(approval);
        return approval;
      }
    }
    return undefined;
  }

  private live(nowSeconds: number): StateRecord[] {
    const records: StateRecord[] = [];
    for (const approval of this.byId.values()) {
      const decidedLongAgo = approval.decidedAtSeconds !== null && approval.decidedAtSeconds + DECIDED_APPROVAL_KEEP_SECONDS <= nowSeconds;
      if (!decidedLongAgo) records.push(toRecord(approval));
    }
    return records;
  }
}

function callerKeyId(principal: Principal, idempotencyKey: string): string {
  return `${principalName(principal)}\u0000${idempotencyKey}`;
}

function toRecord(approval: Approval): StateRecord {
  return { type: APPROVAL_RECORD_TYPE, approval: JSON.parse(JSON.stringify(approval)) as unknown };
}

const STATUSES: ReadonlySet<string> = new Set(APPROVAL_STATUSES);

/** parseApproval checks a replayed record's shape and throws on anything else. */
function parseApproval(record: StateRecord): Approval {
  const value = record['approval'] as Record<string, unknown> | null | undefined;
  const request = value?.['request'] as AuthorizationRequest | undefined;
  const ok =
    typeof value === 'object' &&
    value !== null &&
    typeof value['id'] === 'string' &&
    STATUSES.has(value['status'] as string) &&
    typeof value['principal'] === 'object' &&
    typeof request === 'object' &&
    request !== null &&
    typeof request.kind === 'string' &&
    typeof value['rule'] === 'string' &&
    Array.isArray(value['reasons']) &&
    Number.isSafeInteger(value['createdAtSeconds']) &&
    Number.isSafeInteger(value['expiresAtSeconds']) &&
    typeof value['requestSha256'] === 'string' &&
    typeof value['idempotencyKey'] === 'string' &&
    typeof value['callerKey'] === 'boolean' &&
    typeof value['fingerprintSha256'] === 'string';
  if (!ok) throw new Error('malformed approval record');
  return value as unknown as Approval;
}

/**
 * The approval book: every approval, durable in the state journal. A new approval and every
 * decision are appended as a whole snapshot before anyone is answered, and the newest snapshot of
 * each id wins on replay, so a pending approval acknowledged with 202 — and its decision —
 * survive a restart or a kill -9.
 */
import { APPROVAL_STATUSES, type Approval } from './approval.js';
import type { AuthorizationRequest } from './authorization-request.js';
import { principalName, type Principal } from './principal.js';
import type { RecordStore, StateRecord } from './record-store.js';

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
    store?.register(APPROVAL_RECORD_TYPE, {
      replay: (record) => this.remember(parseApproval(record)),
      live: (nowSeconds) => this.live(nowSeconds),
    });
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
    this.remember(approval);
    try {
      await this.store?.append(toRecord(approval));
    } catch (error) {
      // Never acknowledged, so never there: a retry creates it afresh.
      this.forget(approval);
      throw error;
    }
    return approval;
  }

  /** update records a decision durably, then wakes everyone waiting for this approval. */
  async update(approval: Approval): Promise<void> {
    await this.store?.append(toRecord(approval));
    this.remember(approval);
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

  private remember(approval: Approval): void {
    // Map order is creation order: an update keeps the id's first place.
    if (!this.byId.has(approval.id) && this.byId.size >= APPROVALS_MAX) this.forgetOldestDecided();
    this.byId.set(approval.id, approval);
    if (approval.callerKey) this.byCallerKey.set(callerKeyId(approval.principal, approval.idempotencyKey), approval.id);
  }

  private forget(approval: Approval): void {
    this.byId.delete(approval.id);
    if (approval.callerKey) this.byCallerKey.delete(callerKeyId(approval.principal, approval.idempotencyKey));
  }

  private forgetOldestDecided(): void {
    for (const approval of this.byId.values()) {
      if (approval.status !== 'pending_approval') {
        this.forget(approval);
        return;
      }
    }
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

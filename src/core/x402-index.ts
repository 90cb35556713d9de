/**
 * The x402 entries of the authorization ledger, indexed for the two questions the guard asks
 * often: which entry a caller's Idempotency-Key made (so a retry finds it, after a restart too,
 * since the key is kept in the entry's own record), and which entries are still unbound (so
 * expiry looks only at those). It follows the ledger and writes nothing to it.
 */
import type { AuthorizationEntry, EntryFollower } from './authorization-ledger.js';

/** What the index follows: the ledger's entries as they are recorded, replayed and forgotten. */
export interface FollowedLedger {
  follow(follower: EntryFollower): void;
}

export class X402Index {
  private readonly byKey = new Map<string, string>();
  /** Entries that were authorized when last seen; expiry re-checks each one's state. */
  private readonly maybeUnbound = new Map<string, Readonly<AuthorizationEntry>>();

  constructor(ledger: FollowedLedger) {
    ledger.follow({ added: (entry) => this.added(entry), forgotten: (entry) => this.forgotten(entry) });
  }

  /** idOf returns the id of the entry a caller's Idempotency-Key made in scope, if any. */
  idOf(scope: string, idempotencyKey: string): string | undefined {
    return this.byKey.get(keyOf(scope, idempotencyKey));
  }

  /** unbound lists the entries still authorized (not yet bound, released or expired). */
  *unbound(): Generator<Readonly<AuthorizationEntry>> {
    for (const [id, entry] of this.maybeUnbound) {
      if (entry.x402?.state === 'authorized' && entry.state === 'active') yield entry;
      else this.maybeUnbound.delete(id);
    }
  }

  private added(entry: Readonly<AuthorizationEntry>): void {
    const detail = entry.x402;
    if (detail === undefined) return;
    if (detail.idempotency !== null) this.byKey.set(keyOf(detail.idempotency.scope, detail.idempotency.key), entry.policyId);
    if (detail.state === 'authorized') this.maybeUnbound.set(entry.policyId, entry);
  }

  private forgotten(entry: Readonly<AuthorizationEntry>): void {
    const detail = entry.x402;
    if (detail === undefined) return;
    if (detail.idempotency !== null) this.byKey.delete(keyOf(detail.idempotency.scope, detail.idempotency.key));
    this.maybeUnbound.delete(entry.policyId);
  }
}

function keyOf(scope: string, idempotencyKey: string): string {
  return `${scope}\u0000${idempotencyKey}`;
}

/**
 * The owner passphrase's lockout (docs/decisions.md §15.4, §17.3): at most 5 wrong passphrases are
 * ever checked within 15 minutes; then every check is refused with 429 too_many_attempts until 15
 * minutes after the first of them. It is the one module every passphrase check goes through
 * (approving today; other owner-present actions later), with one counter.
 *
 * An attempt counts from before its slow hash starts, not after it ends: checks in flight hold a
 * slot, so 150 guesses sent at once still get at most 5 hashed. A right passphrase gives its slot
 * back; a wrong one keeps it, durably in the state journal before it is answered, so a restart (or
 * a kill -9) hands out no fresh guesses. The count belongs to the passphrase it was made against
 * (an id from its salt, never the passphrase or its hash): clearing the passphrase, which only the
 * owner can, ends the lockout, and a new passphrase starts with none (§17.11).
 *
 * @example
 *   const right = await lockout.check(nowSeconds, stored.id, () => stored.verify(candidate));
 *   if (!right) throw new LatchError('invalid_passphrase');
 */
import { LatchError } from '../errors/latch-error.js';
import type { RecordStore, StateRecord } from '../core/record-store.js';

/** Wrong attempts allowed within the window before every check locks. */
export const PASSPHRASE_ATTEMPTS_MAX = 5;
/** The window the attempts are counted in, and how long a lockout lasts: 15 minutes. */
export const PASSPHRASE_WINDOW_SECONDS = 15 * 60;
/** The state journal's record type of one wrong attempt. */
export const PASSPHRASE_FAILURE_RECORD_TYPE = 'approval_passphrase_failure';

interface Failure {
  at: number;
  /** The passphrase it was made against; undefined in records written before ids existed (they count against any). */
  passphraseId: string | undefined;
}

/** PassphraseLockout counts passphrase attempts, in flight and wrong, durably for the wrong ones. */
export class PassphraseLockout {
  // Wrong attempts within the window, oldest first.
  private failures: Failure[] = [];
  // Checks started and not yet answered, per passphrase id.
  private readonly inFlight = new Map<string, number>();

  constructor(private readonly store?: RecordStore) {
    store?.register({
      recordTypes: [PASSPHRASE_FAILURE_RECORD_TYPE],
      apply: (record) => {
        const passphraseId = record['passphrase_id'];
        if (!Number.isSafeInteger(record['at']) || (passphraseId !== undefined && typeof passphraseId !== 'string')) throw new Error('malformed approval_passphrase_failure record');
        return this.noteFailure({ at: record['at'] as number, passphraseId: passphraseId as string | undefined });
      },
      live: (nowSeconds) => this.recent(nowSeconds).map((failure): StateRecord => failureRecord(failure)),
    });
  }

  /** lockedForSeconds returns how long checks of this passphrase stay refused, or 0 when they are not. */
  lockedForSeconds(nowSeconds: number, passphraseId: string): number {
    const counted = this.counted(nowSeconds, passphraseId);
    if (counted.length + (this.inFlight.get(passphraseId) ?? 0) < PASSPHRASE_ATTEMPTS_MAX) return 0;
    // Slots held by checks in flight free within a hash's time; wrong ones 15 minutes after the first.
    if (counted.length < PASSPHRASE_ATTEMPTS_MAX) return 1;
    const first = (counted[counted.length - PASSPHRASE_ATTEMPTS_MAX] as Failure).at;
    return Math.max(1, first + PASSPHRASE_WINDOW_SECONDS - nowSeconds);
  }

  /** attemptsLeft is how many more wrong passphrases this one may take before checks lock. */
  attemptsLeft(nowSeconds: number, passphraseId: string): number {
    return Math.max(0, PASSPHRASE_ATTEMPTS_MAX - this.counted(nowSeconds, passphraseId).length);
  }

  /** refuseWhileLocked throws 429 too_many_attempts while checks of this passphrase are refused. */
  refuseWhileLocked(nowSeconds: number, passphraseId: string): void {
    const seconds = this.lockedForSeconds(nowSeconds, passphraseId);
    if (seconds > 0) {
      throw new LatchError('too_many_attempts', { message: `Too many wrong passphrases: every passphrase check is refused for another ${seconds} seconds.`, retryAfterSeconds: seconds });
    }
  }

  /**
   * check runs one passphrase check under the lockout and reports whether it was right: refused
   * with 429 before verify starts when the attempts (wrong ones in the window and checks in
   * flight) are used up; a wrong answer is durable before check returns.
   */
  async check(nowSeconds: number, passphraseId: string, verify: () => Promise<boolean>): Promise<boolean> {
    this.refuseWhileLocked(nowSeconds, passphraseId);
    // Taken in the same turn as the check above: no other attempt can slip in between.
    this.inFlight.set(passphraseId, (this.inFlight.get(passphraseId) ?? 0) + 1);
    let right = false;
    let failed: Promise<void> | undefined;
    try {
      right = await verify();
    } finally {
      // Counted in this turn: through the store's commit (durable before check returns), or here without a store.
      if (!right) {
        this.failures = this.recent(nowSeconds);
        if (this.store === undefined) this.noteFailure({ at: nowSeconds, passphraseId });
        else {
          failed = this.store.commit(failureRecord({ at: nowSeconds, passphraseId }));
          // When verify threw, its error goes out of this finally and nobody awaits the write.
          failed.catch(() => undefined);
        }
      }
      const left = (this.inFlight.get(passphraseId) ?? 1) - 1;
      if (left === 0) this.inFlight.delete(passphraseId);
      else this.inFlight.set(passphraseId, left);
    }
    // An attempt whose verify threw counts as wrong too: the guess was made.
    await failed;
    return right;
  }

  /** noteFailure counts one wrong attempt (kept in time order); it returns the undo. */
  private noteFailure(failure: Failure): () => void {
    this.failures.push(failure);
    this.failures.sort((a, b) => a.at - b.at);
    return () => {
      const at = this.failures.lastIndexOf(failure);
      if (at !== -1) this.failures.splice(at, 1);
    };
  }

  private counted(nowSeconds: number, passphraseId: string): Failure[] {
    return this.recent(nowSeconds).filter((failure) => failure.passphraseId === undefined || failure.passphraseId === passphraseId);
  }

  private recent(nowSeconds: number): Failure[] {
    return this.failures.filter((failure) => failure.at > nowSeconds - PASSPHRASE_WINDOW_SECONDS);
  }
}

function failureRecord(failure: Failure): StateRecord {
  return { type: PASSPHRASE_FAILURE_RECORD_TYPE, at: failure.at, ...(failure.passphraseId !== undefined && { passphrase_id: failure.passphraseId }) };
}

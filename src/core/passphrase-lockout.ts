/**
 * The approval passphrase's lockout (docs/decisions.md §15.4): after 5 wrong passphrases within 15
 * minutes every approval is refused with 429 too_many_attempts until 15 minutes after the first
 * of them. Each wrong attempt is in the state journal before it is answered, so a restart (or a
 * kill -9) does not hand an attacker a fresh set of guesses.
 */
import { LatchError } from '../errors/latch-error.js';
import type { RecordStore, StateRecord } from './record-store.js';

/** Wrong attempts allowed within the window before approvals lock. */
export const PASSPHRASE_ATTEMPTS_MAX = 5;
/** The window the attempts are counted in, and how long a lockout lasts: 15 minutes. */
export const PASSPHRASE_WINDOW_SECONDS = 15 * 60;
/** The state journal's record type of one wrong attempt. */
export const PASSPHRASE_FAILURE_RECORD_TYPE = 'approval_passphrase_failure';

/** PassphraseLockout counts wrong approval passphrases, durably. */
export class PassphraseLockout {
  // Times of wrong attempts within the window, oldest first.
  private failures: number[] = [];

  constructor(private readonly store?: RecordStore) {
    store?.register(PASSPHRASE_FAILURE_RECORD_TYPE, {
      replay: (record) => {
        if (!Number.isSafeInteger(record['at'])) throw new Error('malformed approval_passphrase_failure record');
        this.failures.push(record['at'] as number);
        this.failures.sort((a, b) => a - b);
      },
      live: (nowSeconds) => this.recent(nowSeconds).map((at): StateRecord => ({ type: PASSPHRASE_FAILURE_RECORD_TYPE, at })),
    });
  }

  /** lockedForSeconds returns how long approvals stay locked, or 0 when they are not. */
  lockedForSeconds(nowSeconds: number): number {
    const recent = this.recent(nowSeconds);
    if (recent.length < PASSPHRASE_ATTEMPTS_MAX) return 0;
    const first = recent[recent.length - PASSPHRASE_ATTEMPTS_MAX] as number;
    return Math.max(1, first + PASSPHRASE_WINDOW_SECONDS - nowSeconds);
  }

  /** refuseWhileLocked throws 429 too_many_attempts while approvals are locked. */
  refuseWhileLocked(nowSeconds: number): void {
    const seconds = this.lockedForSeconds(nowSeconds);
    if (seconds > 0) {
      throw new LatchError('too_many_attempts', { message: `Too many wrong approval passphrases: every approval is refused for another ${seconds} seconds.`, retryAfterSeconds: seconds });
    }
  }

  /** recordFailure keeps a wrong attempt durably, before the caller is answered. */
  async recordFailure(nowSeconds: number): Promise<void> {
    this.failures = this.recent(nowSeconds);
    this.failures.push(nowSeconds);
    await this.store?.append({ type: PASSPHRASE_FAILURE_RECORD_TYPE, at: nowSeconds });
  }

  private recent(nowSeconds: number): number[] {
    return this.failures.filter((at) => at > nowSeconds - PASSPHRASE_WINDOW_SECONDS);
  }
}

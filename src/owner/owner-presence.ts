/**
 * Owner presence (docs/decisions.md §21): proof that the owner is there, not only that something
 * read the daemon token. An action that could move money or widen what agents may do needs it
 * once a presence factor is configured. This module knows no HTTP: the daemon's front door, and
 * any other listener (the owner console), ask it the same questions.
 *
 * A factor is a way of proving presence. Today there is one, the owner passphrase (the approval
 * passphrase's file); a passkey factor is added by listing it in `factors` with its own prover.
 * Every passphrase check of the daemon goes through provePassphrase, and so through the one
 * lockout (src/owner/passphrase-lockout.ts).
 *
 * @example
 *   if (presence.configured() && !present) throw new LatchError('owner_presence_required');
 *   await presence.provePassphrase(body.passphrase); // 401 invalid_passphrase, 429 too_many_attempts
 */
import { LatchError } from '../errors/latch-error.js';
import type { NewOwnerSession, OwnerSessions } from './owner-sessions.js';
import { PASSPHRASE_WINDOW_SECONDS, type PassphraseLockout } from './passphrase-lockout.js';

/**
 * The owner's passphrase as it is set now: an id that names it (from its salt; neither the
 * passphrase nor its hash) and a check of a presented one (slow; never logs or keeps it).
 */
export interface OwnerPassphrase {
  id: string;
  verify(candidate: string): Promise<boolean>;
}

/** The names of presence factors, in the order /health lists them. */
export type PresenceFactorName = 'passphrase' | 'passkey';

/** One way of proving presence, and whether the owner has set it up. */
export interface PresenceFactor {
  name: PresenceFactorName;
  /** Read at each call, so setting or clearing the factor needs no restart. */
  configured(): boolean;
  /**
   * Names the factor's current secret without revealing it (the passphrase file's salt), or
   * undefined when none is set. When it changes — the passphrase was set, changed or cleared —
   * every owner session ends.
   */
  generation?(): string | undefined;
}

/** What OwnerPresence needs from the daemon. */
export interface OwnerPresenceDeps {
  factors: readonly PresenceFactor[];
  /** The one lockout of every passphrase check, durable in the state journal. */
  lockout: PassphraseLockout;
  /** The owner's passphrase now (its id and a slow check), or undefined when none is set. */
  passphrase(): OwnerPassphrase | undefined;
  sessions: OwnerSessions;
  nowSeconds(): number;
}

/** What one passphrase check needs: the lockout, the stored hash's check, the clock. */
export type PassphraseCheckDeps = Pick<OwnerPresenceDeps, 'lockout' | 'passphrase' | 'nowSeconds'>;

/**
 * checkOwnerPassphrase is the daemon's one passphrase check, whatever the route: through the one
 * lockout (429 too_many_attempts), which counts the attempt before the hash; a wrong passphrase is
 * kept durably before the answer (401 invalid_passphrase); none sent is 403
 * owner_presence_required (not a guess). It
 * resolves `right`, or `not_set` when no passphrase is configured (the caller decides what that
 * means: approving then needs none, a session cannot be opened).
 */
export async function checkOwnerPassphrase(deps: PassphraseCheckDeps, candidate: string | undefined): Promise<'right' | 'not_set'> {
  const stored = deps.passphrase();
  if (stored === undefined) return 'not_set';
  const nowSeconds = deps.nowSeconds();
  deps.lockout.refuseWhileLocked(nowSeconds, stored.id);
  if (candidate === undefined) throw new LatchError('owner_presence_required', { message: 'This needs the owner passphrase or an owner session; neither was sent.' });
  // Counted before the slow hash starts, in-flight checks included (docs/decisions.md §17.3).
  if (!(await deps.lockout.check(nowSeconds, stored.id, () => stored.verify(candidate)))) {
    throw new LatchError('invalid_passphrase', { message: wrongPassphraseMessage(deps.lockout.attemptsLeft(nowSeconds, stored.id)) });
  }
  return 'right';
}

/** wrongPassphraseMessage says how many tries remain before the lockout (docs/decisions.md §31.8). */
export function wrongPassphraseMessage(attemptsLeft: number): string {
  const minutes = PASSPHRASE_WINDOW_SECONDS / 60;
  if (attemptsLeft === 0) return `The owner passphrase is wrong, and that was the last try: every passphrase check is locked for ${minutes} minutes.`;
  return `The owner passphrase is wrong: ${attemptsLeft} ${attemptsLeft === 1 ? 'try' : 'tries'} left before every passphrase check locks for ${minutes} minutes.`;
}

/** OwnerPresence answers whether presence is configured and checks its proofs. */
export class OwnerPresence {
  // The factors' generations when last looked at; undefined before the first look.
  private generations: string | undefined;

  constructor(private readonly deps: OwnerPresenceDeps) {}

  /** factors lists the configured factors, e.g. ['passphrase']. */
  factors(): PresenceFactorName[] {
    this.endSessionsIfChanged();
    return this.deps.factors.filter((factor) => factor.configured()).map((factor) => factor.name);
  }

  /** configured reports whether any factor is set up (then the token alone is not presence). */
  configured(): boolean {
    return this.factors().length > 0;
  }

  /** describe is what /health reports: `none`, `passphrase`, or the factors joined by commas. */
  describe(): string {
    const factors = this.factors();
    return factors.length === 0 ? 'none' : factors.join(',');
  }

  /**
   * provePassphrase resolves when candidate is the owner passphrase. Wrong is 401
   * invalid_passphrase (counted durably before the answer); while locked, 429 too_many_attempts.
   * With no passphrase set it is 401 invalid_passphrase too (not counted): nothing can be proved.
   */
  async provePassphrase(candidate: string | undefined): Promise<void> {
    if ((await checkOwnerPassphrase(this.deps, candidate)) === 'not_set') {
      throw new LatchError('invalid_passphrase', { message: 'No owner passphrase is set on this daemon: set one with latch approvals passphrase set.' });
    }
  }

  /**
   * checkPassphrase is what an approval asks when no session proved presence (the approval flow's
   * `checkPassphrase`): checkOwnerPassphrase, where no passphrase set passes (`not_set`).
   */
  checkPassphrase(candidate: string | undefined): Promise<'right' | 'not_set'> {
    return checkOwnerPassphrase(this.deps, candidate);
  }

  /**
   * lockedSeconds is how long the lockout still refuses every passphrase check (0 when it does
   * not, or no passphrase is set: the count belongs to the passphrase, docs/decisions.md §17.11).
   * An unsafe or damaged passphrase file refuses every approval on its own; /health stays up.
   */
  lockedSeconds(): number {
    let stored: OwnerPassphrase | undefined;
    try {
      stored = this.deps.passphrase();
    } catch {
      return 0;
    }
    return stored === undefined ? 0 : this.deps.lockout.lockedForSeconds(this.deps.nowSeconds(), stored.id);
  }

  /** openSession checks the passphrase and makes an owner session (POST /owner/sessions). */
  async openSession(passphrase: string | undefined): Promise<NewOwnerSession> {
    if (passphrase === undefined) throw new LatchError('invalid_passphrase', { message: 'Send {"passphrase": "..."} to open an owner session.' });
    // The session is proved with the factors as they are now: take them as the baseline first, or
    // the first session after a passphrase change would be ended at its first use for that change.
    this.endSessionsIfChanged();
    const proved = this.generations;
    await this.provePassphrase(passphrase);
    this.endSessionsIfChanged();
    if (this.generations !== proved) {
      // The passphrase changed while it was being checked: what was proved is no longer the owner's.
      throw new LatchError('invalid_passphrase', { message: 'The owner passphrase changed while it was being checked; log in again with the current one.' });
    }
    return this.deps.sessions.create(this.deps.nowSeconds());
  }

  /** useSession reports whether token is a live owner session, and counts the use. */
  useSession(token: string): boolean {
    this.endSessionsIfChanged();
    return this.deps.sessions.use(token, this.deps.nowSeconds());
  }

  /** endSessionsIfChanged ends every session once a factor was set, changed or cleared since the last look. */
  private endSessionsIfChanged(): void {
    const now = JSON.stringify(this.deps.factors.map((factor) => factor.generation?.() ?? null));
    if (this.generations !== undefined && this.generations !== now) this.deps.sessions.endAll();
    this.generations = now;
  }

  /** endSession ends the session of token; it reports whether there was one. */
  endSession(token: string): boolean {
    return this.deps.sessions.end(token, this.deps.nowSeconds());
  }
}

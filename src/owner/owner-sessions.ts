/**
 * Owner sessions (docs/decisions.md §21): a bearer token `los_…` that acts as the owner with
 * presence, made by POST /owner/sessions after a right passphrase. Sessions live in this object
 * only — never on disk — so a restart ends every one. A session ends 300 s after its last use and
 * never later than its lifetime (at most 3600 s) after it was made.
 *
 * Only the SHA-256 of each token is kept, and a presented token is compared with every session's
 * hash in constant time, with no early exit, like the daemon token (src/http/bearer-token.ts).
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { sha256 } from '@noble/hashes/sha2.js';

/** The prefix of every session token: it tells the front door which kind of bearer it holds. */
export const OWNER_SESSION_PREFIX = 'los_';
/** A session ends this long after its last use. */
export const OWNER_SESSION_IDLE_SECONDS = 300;
/** The longest a session may live, and its default lifetime (config `owner_session_seconds`). */
export const OWNER_SESSION_SECONDS_MAX = 3600;
/** The most sessions held at once; a new one beyond it ends the oldest (an owner is never locked out). */
export const OWNER_SESSIONS_MAX = 32;

const TOKEN_BYTES = 32;

interface Session {
  hash: Uint8Array;
  createdAtSeconds: number;
  lastUsedAtSeconds: number;
  expiresAtSeconds: number;
}

/** A new session as its maker sees it once: the token and when it ends at the latest. */
export interface NewOwnerSession {
  token: string;
  expiresAtSeconds: number;
}

/** OwnerSessions holds the daemon's owner sessions in memory. */
export class OwnerSessions {
  private sessions: Session[] = [];

  /**
   * @param lifetimeSeconds how long a session lives at most (read at each creation, so a config
   *   change applies to new sessions); values outside 1..3600 are clamped into it.
   */
  constructor(private readonly lifetimeSeconds: () => number = () => OWNER_SESSION_SECONDS_MAX) {}

  /** create makes a session; the token is returned here and never kept. */
  create(nowSeconds: number): NewOwnerSession {
    this.prune(nowSeconds);
    const token = OWNER_SESSION_PREFIX + randomBytes(TOKEN_BYTES).toString('base64url');
    const lifetime = Math.min(OWNER_SESSION_SECONDS_MAX, Math.max(1, Math.floor(this.lifetimeSeconds())));
    const session: Session = { hash: sha256(Buffer.from(token)), createdAtSeconds: nowSeconds, lastUsedAtSeconds: nowSeconds, expiresAtSeconds: nowSeconds + lifetime };
    this.sessions.push(session);
    if (this.sessions.length > OWNER_SESSIONS_MAX) this.sessions.shift();
    return { token, expiresAtSeconds: session.expiresAtSeconds };
  }

  /**
   * use reports whether token is a live session, and counts this as its use (the idle time
   * starts again). An expired session is forgotten.
   */
  use(token: string, nowSeconds: number): boolean {
    this.prune(nowSeconds);
    const found = this.find(token);
    if (found === undefined) return false;
    found.lastUsedAtSeconds = nowSeconds;
    return true;
  }

  /** end ends the session of token; it reports whether there was one. */
  end(token: string, nowSeconds: number): boolean {
    this.prune(nowSeconds);
    const found = this.find(token);
    if (found === undefined) return false;
    this.sessions = this.sessions.filter((session) => session !== found);
    return true;
  }

  /** endAll ends every session (the passphrase was changed or cleared). */
  endAll(): void {
    this.sessions = [];
  }

  /** count is how many sessions are live now. */
  count(nowSeconds: number): number {
    this.prune(nowSeconds);
    return this.sessions.length;
  }

  private find(token: string): Session | undefined {
    const presented = sha256(Buffer.from(token));
    let found: Session | undefined;
    // Every hash is compared, so the timing says nothing about which session matched.
    for (const session of this.sessions) {
      if (timingSafeEqual(presented, session.hash)) found ??= session;
    }
    return token.startsWith(OWNER_SESSION_PREFIX) ? found : undefined;
  }

  private prune(nowSeconds: number): void {
    this.sessions = this.sessions.filter((session) => nowSeconds < session.expiresAtSeconds && nowSeconds < session.lastUsedAtSeconds + OWNER_SESSION_IDLE_SECONDS);
  }
}

/**
 * The console's logins: one-time login codes (made by the owner through the API, traded once by
 * the page) and the browser sessions they become. Both live in the daemon's memory only, so a
 * restart ends every console session. Secrets are looked up by their SHA-256, never compared as
 * text, so a lookup's timing says nothing about the secret (docs/decisions.md §25).
 */
import { randomBytes } from 'node:crypto';
import { sha256 } from '@noble/hashes/sha2.js';
import { toBase64Url, utf8 } from '../crypto/base64url.js';

/** A login code lasts this long; the page trades it at once. */
export const LOGIN_CODE_SECONDS = 60;
/** A console session ends after this long unused… */
export const SESSION_IDLE_SECONDS = 15 * 60;
/** …and never later than this after the login. */
export const SESSION_MAX_SECONDS = 12 * 60 * 60;
/** Codes and sessions held at once; the oldest go first (TigerStyle: a limit on everything). */
const CODES_MAX = 16;
const SESSIONS_MAX = 32;

export interface ConsoleSession {
  /** The per-session CSRF token the page sends as X-Latch-CSRF. */
  readonly csrf: string;
  readonly createdMs: number;
  lastUsedMs: number;
}

export interface ConsoleLogin {
  /** The cookie value (the session secret). */
  readonly cookie: string;
  readonly csrf: string;
}

export interface ConsoleSessions {
  /** issueCode makes a one-time login code. */
  issueCode(): { code: string; expiresMs: number };
  /** login trades a code for a session, once; undefined for an unknown, used or expired code. */
  login(code: string): ConsoleLogin | undefined;
  /**
   * codeLive reports whether a code would trade now, without spending it: a login that must also
   * prove presence keeps its code while the person retypes a passphrase (docs/decisions.md §37).
   */
  codeLive(code: string): boolean;
  /** open starts a session for an owner who proved presence (passkey sign-in), without a code. */
  open(): ConsoleLogin;
  /**
   * session returns the live session a cookie names without touching it: a request that fails
   * its CSRF check, or loads a public page, must not keep a session alive (docs/decisions.md §29.8).
   */
  session(cookie: string): ConsoleSession | undefined;
  /** touch restarts a live session's idle time; the front door calls it once the CSRF check has passed. */
  touch(cookie: string): void;
  /** logout ends the session a cookie names. */
  logout(cookie: string): void;
}

const hashedSecret = (secret: string): string => toBase64Url(sha256(utf8(secret)));
const newSecret = (): string => toBase64Url(randomBytes(32));

/** createConsoleSessions makes the in-memory store; `now` is injectable for tests. */
export function createConsoleSessions(now: () => number = Date.now): ConsoleSessions {
  const codes = new Map<string, number>();
  const sessions = new Map<string, ConsoleSession>();

  const dropOldest = <T>(map: Map<string, T>, max: number): void => {
    while (map.size >= max) {
      const oldest = map.keys().next().value;
      if (oldest === undefined) return;
      map.delete(oldest);
    }
  };
  const live = (session: ConsoleSession, atMs: number): boolean =>
    atMs - session.lastUsedMs < SESSION_IDLE_SECONDS * 1000 && atMs - session.createdMs < SESSION_MAX_SECONDS * 1000;

  const open = (): ConsoleLogin => {
    dropOldest(sessions, SESSIONS_MAX);
    const cookie = newSecret();
    const csrf = newSecret();
    const atMs = now();
    sessions.set(hashedSecret(cookie), { csrf, createdMs: atMs, lastUsedMs: atMs });
    return { cookie, csrf };
  };

  return {
    issueCode() {
      dropOldest(codes, CODES_MAX);
      const code = newSecret();
      const expiresMs = now() + LOGIN_CODE_SECONDS * 1000;
      codes.set(hashedSecret(code), expiresMs);
      return { code, expiresMs };
    },
    login(code) {
      const key = hashedSecret(code);
      const expiresMs = codes.get(key);
      codes.delete(key);
      if (expiresMs === undefined || now() >= expiresMs) return undefined;
      return open();
    },
    codeLive(code) {
      const expiresMs = codes.get(hashedSecret(code));
      return expiresMs !== undefined && now() < expiresMs;
    },
    open,
    session(cookie) {
      const key = hashedSecret(cookie);
      const session = sessions.get(key);
      if (session === undefined) return undefined;
      const atMs = now();
      if (!live(session, atMs)) {
        sessions.delete(key);
        return undefined;
      }
      return session;
    },
    touch(cookie) {
      const session = sessions.get(hashedSecret(cookie));
      const atMs = now();
      if (session !== undefined && live(session, atMs)) session.lastUsedMs = atMs;
    },
    logout(cookie) {
      sessions.delete(hashedSecret(cookie));
    },
  };
}

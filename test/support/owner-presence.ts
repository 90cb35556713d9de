/**
 * Owner presence for front-door tests that build their own: noPresenceFactor() has no factor
 * configured (an 'owner_present' route admits the owner's token alone, as with no passphrase set),
 * and passphrasePresence(passphrase) has the passphrase factor, with a real lockout and sessions.
 */
import { OwnerPresence } from '../../src/owner/owner-presence.js';
import { OwnerSessions } from '../../src/owner/owner-sessions.js';
import { PassphraseLockout } from '../../src/owner/passphrase-lockout.js';

/** noPresenceFactor is presence with no factor configured, said explicitly. */
export function noPresenceFactor(): OwnerPresence {
  return new OwnerPresence({
    factors: [{ name: 'passphrase', configured: () => false }],
    lockout: new PassphraseLockout(),
    passphrase: () => undefined,
    sessions: new OwnerSessions(),
    nowSeconds: () => Math.floor(Date.now() / 1000),
  });
}

/** passphrasePresence is presence with an owner passphrase (compared in plain: a test double of the scrypt check). */
export function passphrasePresence(passphrase: string, options: { nowSeconds?: () => number; checks?: { count: number } } = {}): { presence: OwnerPresence; sessions: OwnerSessions; lockout: PassphraseLockout } {
  const nowSeconds = options.nowSeconds ?? (() => Math.floor(Date.now() / 1000));
  const sessions = new OwnerSessions();
  const lockout = new PassphraseLockout();
  const presence = new OwnerPresence({
    factors: [{ name: 'passphrase', configured: () => true }],
    lockout,
    passphrase: () => ({
      id: 'test-passphrase',
      verify: async (candidate) => {
        if (options.checks !== undefined) options.checks.count++;
        // A moment's work, as scrypt's, so that parallel checks overlap.
        await new Promise((resolve) => setImmediate(resolve));
        return candidate === passphrase;
      },
    }),
    sessions,
    nowSeconds,
  });
  return { presence, sessions, lockout };
}

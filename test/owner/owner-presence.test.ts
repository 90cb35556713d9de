/**
 * Owner sessions and presence without HTTP (docs/decisions.md §21): a session ends 300 s after its
 * last use and never later than its lifetime (at most 3600 s); a made-up or ended token is no
 * session; presence is configured only by a factor; every passphrase check goes through the one
 * lockout, parallel guesses included.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { OwnerPresence } from '../../src/owner/owner-presence.js';
import { OWNER_SESSION_IDLE_SECONDS, OWNER_SESSION_SECONDS_MAX, OWNER_SESSIONS_MAX, OwnerSessions } from '../../src/owner/owner-sessions.js';
import { PassphraseLockout } from '../../src/owner/passphrase-lockout.js';
import { LatchError } from '../../src/errors/latch-error.js';
import { passphrasePresence } from '../support/owner-presence.js';

const T0 = 1_800_000_000;
const codeOf = (error: unknown) => (error instanceof LatchError ? error.code : String(error));

describe('owner sessions', () => {
  test('a session ends 300 s after its last use; each use starts the idle time again', () => {
    const sessions = new OwnerSessions();
    const { token } = sessions.create(T0);
    assert.match(token, /^los_[A-Za-z0-9_-]{43}$/);
    assert.equal(sessions.use(token, T0 + OWNER_SESSION_IDLE_SECONDS - 1), true);
    assert.equal(sessions.use(token, T0 + 2 * OWNER_SESSION_IDLE_SECONDS - 2), true, 'the use above started the idle time again');
    assert.equal(sessions.use(token, T0 + 3 * OWNER_SESSION_IDLE_SECONDS - 2), false, 'idle for 300 s: ended');
    assert.equal(sessions.use(token, T0 + 3 * OWNER_SESSION_IDLE_SECONDS - 100), false, 'an ended session never comes back');
  });

  test('a session used all the time still ends at its lifetime, 3600 s by default and never more', () => {
    const sessions = new OwnerSessions();
    const { token, expiresAtSeconds } = sessions.create(T0);
    assert.equal(expiresAtSeconds, T0 + OWNER_SESSION_SECONDS_MAX);
    for (let at = T0; at < T0 + OWNER_SESSION_SECONDS_MAX; at += 200) assert.equal(sessions.use(token, at), true, `in use at +${at - T0} s`);
    assert.equal(sessions.use(token, T0 + OWNER_SESSION_SECONDS_MAX), false);
    const long = new OwnerSessions(() => 10 * OWNER_SESSION_SECONDS_MAX);
    assert.equal(long.create(T0).expiresAtSeconds, T0 + OWNER_SESSION_SECONDS_MAX, 'a longer configured lifetime is capped at 3600 s');
    const short = new OwnerSessions(() => 120);
    const shortToken = short.create(T0).token;
    assert.equal(short.use(shortToken, T0 + 119), true);
    assert.equal(short.use(shortToken, T0 + 120), false);
  });

  test('a made-up token, another prefix or an ended session is no session; end ends only its own', () => {
    const sessions = new OwnerSessions();
    const a = sessions.create(T0).token;
    const b = sessions.create(T0).token;
    for (const forged of [`los_${'A'.repeat(43)}`, a.slice(0, -1), `${a}x`, a.replace('los_', 'lot_'), '', 'los_']) assert.equal(sessions.use(forged, T0 + 1), false, forged);
    assert.equal(sessions.end(a, T0 + 1), true);
    assert.equal(sessions.use(a, T0 + 2), false);
    assert.equal(sessions.use(b, T0 + 2), true);
    sessions.endAll();
    assert.equal(sessions.use(b, T0 + 3), false);
  });

  test(`at most ${OWNER_SESSIONS_MAX} sessions live at once: a new one ends the oldest`, () => {
    const sessions = new OwnerSessions();
    const tokens = Array.from({ length: OWNER_SESSIONS_MAX + 1 }, (_, i) => sessions.create(T0 + i).token);
    assert.equal(sessions.count(T0 + OWNER_SESSIONS_MAX), OWNER_SESSIONS_MAX);
    assert.equal(sessions.use(tokens[0] as string, T0 + OWNER_SESSIONS_MAX), false);
    assert.equal(sessions.use(tokens.at(-1) as string, T0 + OWNER_SESSIONS_MAX), true);
  });
});

describe('owner presence', () => {
  test('no factor configured: describe is none and nothing can open a session', async () => {
    const presence = new OwnerPresence({
      factors: [{ name: 'passphrase', configured: () => false }],
      lockout: new PassphraseLockout(),
      passphrase: () => undefined,
      sessions: new OwnerSessions(),
      nowSeconds: () => T0,
    });
    assert.equal(presence.configured(), false);
    assert.equal(presence.describe(), 'none');
    await assert.rejects(presence.openSession('anything at all'), (e) => codeOf(e) === 'invalid_passphrase');
  });

  test('factors are listed in order: passphrase, then passkey', () => {
    const presence = new OwnerPresence({
      factors: [
        { name: 'passphrase', configured: () => true },
        { name: 'passkey', configured: () => true },
      ],
      lockout: new PassphraseLockout(),
      passphrase: () => ({ id: 'p', verify: async () => true }),
      sessions: new OwnerSessions(),
      nowSeconds: () => T0,
    });
    assert.equal(presence.describe(), 'passphrase,passkey');
  });

  test('a wrong passphrase is 401 and counted; five lock every check with 429, the right one included', async () => {
    let now = T0;
    const { presence, lockout } = passphrasePresence('right passphrase', { nowSeconds: () => now });
    for (let i = 0; i < 5; i++) await assert.rejects(presence.openSession(`wrong ${i}`), (e) => codeOf(e) === 'invalid_passphrase');
    await assert.rejects(presence.openSession('right passphrase'), (e) => codeOf(e) === 'too_many_attempts');
    await assert.rejects(presence.provePassphrase('right passphrase'), (e) => codeOf(e) === 'too_many_attempts');
    assert.ok(lockout instanceof PassphraseLockout);
    now = T0 + 15 * 60;
    assert.match((await presence.openSession('right passphrase')).token, /^los_/);
  });

  test('setting, changing or clearing the passphrase ends every owner session', async () => {
    let salt: string | undefined = 'salt-1';
    const sessions = new OwnerSessions();
    const presence = new OwnerPresence({
      factors: [{ name: 'passphrase', configured: () => salt !== undefined, generation: () => salt }],
      lockout: new PassphraseLockout(),
      passphrase: () => (salt === undefined ? undefined : { id: salt, verify: async (candidate: string) => candidate === 'right passphrase' }),
      sessions,
      nowSeconds: () => T0,
    });
    const first = (await presence.openSession('right passphrase')).token;
    assert.equal(presence.useSession(first), true);
    salt = 'salt-2';
    assert.equal(presence.useSession(first), false, 'a changed passphrase ends the session');
    const second = (await presence.openSession('right passphrase')).token;
    salt = undefined;
    assert.equal(presence.useSession(second), false, 'a cleared passphrase ends the session');
  });

  test('the first session opened after a passphrase change lives: the change is taken as the baseline when it opens', async () => {
    let salt: string | undefined = 'salt-1';
    let verifying: (() => void) | undefined;
    const presence = new OwnerPresence({
      factors: [{ name: 'passphrase', configured: () => salt !== undefined, generation: () => salt }],
      lockout: new PassphraseLockout(),
      passphrase: () => (salt === undefined ? undefined : { id: salt, verify: async (candidate: string) => (verifying?.(), candidate === 'right passphrase') }),
      sessions: new OwnerSessions(),
      nowSeconds: () => T0,
    });
    const before = (await presence.openSession('right passphrase')).token;
    assert.equal(presence.useSession(before), true);
    // The passphrase changes and nothing looks at the factors before the owner logs in again.
    salt = 'salt-2';
    const after = (await presence.openSession('right passphrase')).token;
    assert.equal(presence.useSession(after), true, 'the new session survives its first use');
    assert.equal(presence.useSession(after), true);
    assert.equal(presence.useSession(before), false, 'the session from before the change ended');
    // A change while the passphrase is being checked: what was proved is no longer the owner's.
    verifying = () => {
      salt = 'salt-3';
    };
    await assert.rejects(presence.openSession('right passphrase'), (e) => codeOf(e) === 'invalid_passphrase');
    assert.equal(presence.useSession(after), false, 'the change ended the sessions opened before it');
  });

  test('50 wrong passphrases in parallel: at most 5 are checked', async () => {
    const checks = { count: 0 };
    const { presence } = passphrasePresence('right passphrase', { checks });
    const results = await Promise.allSettled(Array.from({ length: 50 }, (_, i) => presence.openSession(`wrong guess ${i}`)));
    assert.ok(results.every((result) => result.status === 'rejected'));
    assert.ok(checks.count <= 5, `${checks.count} wrong passphrases were checked`);
  });
});

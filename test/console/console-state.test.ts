/** The console's in-memory state and pure pieces: sessions, challenges, passkeys file, spending, activity. */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { activityLine } from '../../src/console/activity.js';
import { createConsoleSessions, LOGIN_CODE_SECONDS, SESSION_IDLE_SECONDS, SESSION_MAX_SECONDS } from '../../src/console/console-sessions.js';
import { challengeFor, CHALLENGE_SECONDS, createPresenceChallenges } from '../../src/console/presence-challenges.js';
import { summarizeSpending } from '../../src/console/spending-summary.js';
import { cookieValues } from '../../src/console/console-headers.js';
import { cleanLabel, readPasskeys, writePasskeys } from '../../src/datadir/passkeys.js';
import { DataDirError } from '../../src/datadir/data-dir-error.js';
import type { AuthorizationEntry } from '../../src/core/authorization-ledger.js';
import type { PolicyBudget } from '../../src/policy/policy-types.js';

describe('console sessions', () => {
  test('a code works once and only within 60 s; a session ends idle or at its lifetime', () => {
    let now = 1_000_000;
    const sessions = createConsoleSessions(() => now);
    const { code } = sessions.issueCode();
    now += (LOGIN_CODE_SECONDS - 1) * 1000;
    const login = sessions.login(code);
    assert.ok(login !== undefined);
    assert.equal(sessions.login(code), undefined, 'a code worked twice');
    const late = sessions.issueCode();
    now += LOGIN_CODE_SECONDS * 1000;
    assert.equal(sessions.login(late.code), undefined, 'an expired code worked');

    assert.ok(sessions.session(login.cookie) !== undefined);
    sessions.touch(login.cookie);
    now += (SESSION_IDLE_SECONDS - 1) * 1000;
    assert.ok(sessions.session(login.cookie) !== undefined, 'use keeps a session alive');
    sessions.touch(login.cookie);
    now += SESSION_IDLE_SECONDS * 1000;
    assert.equal(sessions.session(login.cookie), undefined, 'an idle session lived on');

    const long = sessions.login(sessions.issueCode().code);
    assert.ok(long !== undefined);
    for (let spent = 0; spent < SESSION_MAX_SECONDS; spent += SESSION_IDLE_SECONDS - 60) {
      now += (SESSION_IDLE_SECONDS - 60) * 1000;
      if (spent + SESSION_IDLE_SECONDS - 60 < SESSION_MAX_SECONDS) assert.ok(sessions.session(long.cookie) !== undefined);
      sessions.touch(long.cookie);
    }
    assert.equal(sessions.session(long.cookie), undefined, 'a session outlived its lifetime');
  });

  test('looking a session up does not keep it alive; only touch does', () => {
    let now = 0;
    const sessions = createConsoleSessions(() => now);
    const login = sessions.login(sessions.issueCode().code);
    assert.ok(login !== undefined);
    for (let minute = 1; minute < 15; minute++) {
      now = minute * 60_000;
      assert.ok(sessions.session(login.cookie) !== undefined);
    }
    now = SESSION_IDLE_SECONDS * 1000;
    assert.equal(sessions.session(login.cookie), undefined, 'look-ups kept an idle session alive');
  });

  test('the cookie parser lists the well-formed copies of the __Host- session cookie, at most four', () => {
    const value = 'a'.repeat(43);
    const other = 'b'.repeat(43);
    assert.deepEqual(cookieValues(`__Host-latch_console=${value}`), [value]);
    assert.deepEqual(cookieValues(`other=1; __Host-latch_console=${value}`), [value]);
    assert.deepEqual(cookieValues(`__Host-latch_console=${value}; __Host-latch_console=${value}`), [value]);
    assert.deepEqual(cookieValues(`__Host-latch_console=${value}; __Host-latch_console=${other}`), [value, other]);
    assert.deepEqual(cookieValues(`latch_console=${value}`), [], 'the name without its prefix is not the cookie');
    assert.deepEqual(cookieValues(`__Host-latch_console=${value}x`), []);
    assert.deepEqual(cookieValues('__Host-latch_console='), []);
    assert.deepEqual(cookieValues(undefined), []);
    assert.deepEqual(cookieValues(Array.from({ length: 5 }, (_, i) => `__Host-latch_console=${String(i).repeat(43)}`).join('; ')), []);
  });
});

describe('presence challenges', () => {
  const approval = { kind: 'approval', approvalId: 'ap_1', requestSha256: 'a'.repeat(64) } as const;
  const presence = { kind: 'presence', request: { method: 'POST', path: '/console/api/a/resume', bodySha256: 'c'.repeat(64) } } as const;
  test('a challenge is bound to its purpose, used once, and expires', () => {
    let now = 0;
    const challenges = createPresenceChallenges(() => now);
    const one = challenges.issue(approval);
    assert.equal(challenges.consume(one, { ...approval, approvalId: 'ap_2' }), undefined, 'another approval');
    assert.equal(challenges.consume(one, approval), undefined, 'a challenge offered for the wrong purpose is spent');
    const two = challenges.issue(approval);
    assert.equal(challenges.consume(two, { ...approval, requestSha256: 'b'.repeat(64) }), undefined, 'other terms');
    const three = challenges.issue(approval);
    assert.deepEqual(challenges.consume(three, approval), three);
    assert.equal(challenges.consume(three, approval), undefined, 'used twice');
    const four = challenges.issue(presence);
    now += CHALLENGE_SECONDS * 1000;
    assert.equal(challenges.consume(four, presence), undefined, 'expired');
  });
  test('the binding is a hash of the approval id, the request hash and the nonce', () => {
    const nonce = new Uint8Array(32);
    assert.notDeepEqual(challengeFor(approval, nonce), challengeFor({ ...approval, approvalId: 'ap_2' }, nonce));
    assert.notDeepEqual(challengeFor(approval, nonce), challengeFor(presence, nonce));
    assert.equal(challengeFor(approval, nonce).length, 32);
  });
  test('a presence challenge is bound to one method, path and body', () => {
    const challenges = createPresenceChallenges();
    for (const other of [
      { ...presence.request, method: 'PUT' },
      { ...presence.request, path: '/console/api/a/sign-card-policy-window' },
      { ...presence.request, bodySha256: 'd'.repeat(64) },
    ]) {
      const challenge = challenges.issue(presence);
      assert.equal(challenges.consume(challenge, { kind: 'presence', request: other }), undefined, JSON.stringify(other));
    }
    const challenge = challenges.issue(presence);
    assert.deepEqual(challenges.consume(challenge, { kind: 'presence', request: { ...presence.request } }), challenge);
  });
});

describe('passkeys file', () => {
  const home = mkdtempSync(path.join(tmpdir(), 'latch-passkeys-'));
  chmodSync(home, 0o700);
  const key = { id: 'AQID', label: 'laptop', alg: -8 as const, jwk: { kty: 'OKP' as const, crv: 'Ed25519' as const, x: 'A'.repeat(43) }, signCount: 3, createdAt: '2026-11-25T10:00:00Z' };
  test('written and read back; absent is none; damage fails closed', () => {
    assert.deepEqual(readPasskeys(home), []);
    writePasskeys(home, [key]);
    assert.deepEqual(readPasskeys(home), [key]);
    writeFileSync(path.join(home, 'passkeys.json'), '{"v":1,"passkeys":[{"id":"AQID","alg":-257}]}', { mode: 0o600 });
    assert.throws(() => readPasskeys(home), DataDirError);
    chmodSync(path.join(home, 'passkeys.json'), 0o644);
    assert.throws(() => readPasskeys(home), DataDirError, 'a file others can read is refused');
    rmSync(home, { recursive: true, force: true });
  });
  test('labels are trimmed, bounded and free of control characters', () => {
    assert.equal(cleanLabel('  laptop\u001b[2J  '), 'laptop[2J');
    assert.equal(cleanLabel(''), 'passkey');
    assert.equal(cleanLabel('x'.repeat(200)).length, 64);
  });
});

describe('spending summary', () => {
  const day = 86_400;
  const now = 100 * day + 3600;
  const entry = (over: Partial<AuthorizationEntry>): AuthorizationEntry =>
    ({ policyId: 'pw_x', agent: 'shopper', cardId: 'card_a', merchant: 'shop.example', currency: 'USD', amountMinor: 1000, kind: 'one_time', authorizationType: 'exact', signedAtSeconds: now - 60, notAfterSeconds: now + 60, state: 'active', usedMinor: null, ...over }) as AuthorizationEntry;
  const budget: PolicyBudget = { id: 'weekly', per: 'week', windowSeconds: 7 * day, limitMinor: 5000, over: 'deny', currencies: ['USD'] };
  test('per day by agent and card; budgets split into used, reserved and remaining', () => {
    const summary = summarizeSpending(
      [
        entry({ policyId: 'pw_1', state: 'used', usedMinor: 700 }),
        entry({ policyId: 'pw_2', agent: 'helper', cardId: 'card_b', amountMinor: 250 }),
        entry({ policyId: 'pw_3', state: 'failed', amountMinor: 99_999 }),
        entry({ policyId: 'pw_4', signedAtSeconds: now - 40 * day }),
        entry({ policyId: 'pw_5', signedAtSeconds: now - 2 * day, state: 'revoked' }),
      ],
      { budgets: [{ budget, exposureMinor: 950 }], velocity: [] },
      now,
    );
    assert.equal(summary.days.length, 30);
    assert.equal(summary.days[29], '1970-04-11');
    assert.equal(summary.by_currency['USD']?.by_agent['shopper']?.[29], 700);
    assert.equal(summary.by_currency['USD']?.by_agent['helper']?.[29], 250);
    assert.equal(summary.by_currency['USD']?.by_agent['shopper']?.reduce((a, b) => a + b, 0), 700, 'failed, revoked and old entries are not drawn');
    assert.deepEqual(summary.budgets[0], { id: 'weekly', period: 'week', currency: 'USD', limit: '50.00', used: '7.00', reserved: '2.50', remaining: '40.50', limit_minor: 5000, used_minor: 700, reserved_minor: 250 });
  });
});

describe('activity lines', () => {
  test('an audit line in words, never more than its fields say', () => {
    const line = activityLine(JSON.stringify({ seq: 4, prev: '0', time: '2026-11-25T10:00:00Z', operation: 'sign_card_policy_window', policy_id: 'pw_1', merchant: 'shop.example', amount: '5.00', currency: 'USD', agent: 'shopper' }));
    assert.deepEqual(line, { seq: 4, ts: '2026-11-25T10:00:00Z', agent: 'shopper', operation: 'sign_card_policy_window', kind: 'spending', words: 'authorized 5.00 USD at shop.example (pw_1)' });
    assert.equal(activityLine('not json'), undefined);
    assert.equal(activityLine('[1,2]')?.operation, 'unknown');
  });
});

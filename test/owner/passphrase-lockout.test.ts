import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PASSPHRASE_ATTEMPTS_MAX, PASSPHRASE_WINDOW_SECONDS, PassphraseLockout } from '../../src/owner/passphrase-lockout.js';
import { LatchError } from '../../src/errors/latch-error.js';

const codeOf = (error: unknown) => (error instanceof LatchError ? error.code : String(error));

test('checks in flight hold their slot: of 20 concurrent wrong guesses only 5 are verified', async () => {
  const lockout = new PassphraseLockout();
  let verified = 0;
  let release: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const attempts = Array.from({ length: 20 }, () =>
    lockout.check(1_000, 'p1', async () => {
      verified++;
      await gate;
      return false;
    }),
  );
  release();
  const results = await Promise.allSettled(attempts);
  assert.equal(verified, PASSPHRASE_ATTEMPTS_MAX);
  assert.equal(results.filter((r) => r.status === 'fulfilled' && r.value === false).length, PASSPHRASE_ATTEMPTS_MAX);
  assert.ok(results.filter((r) => r.status === 'rejected').every((r) => codeOf((r as PromiseRejectedResult).reason) === 'too_many_attempts'));
  assert.equal(lockout.lockedForSeconds(1_000, 'p1'), PASSPHRASE_WINDOW_SECONDS);
});

test('a right passphrase gives its slot back; the count belongs to its passphrase; it ends after 15 minutes', async () => {
  const lockout = new PassphraseLockout();
  for (let i = 0; i < 10; i++) assert.equal(await lockout.check(1_000, 'p1', async () => true), true);
  for (let i = 0; i < PASSPHRASE_ATTEMPTS_MAX; i++) assert.equal(await lockout.check(1_000 + i, 'p1', async () => false), false);
  await assert.rejects(lockout.check(1_010, 'p1', async () => true), (e) => codeOf(e) === 'too_many_attempts');
  assert.equal(await lockout.check(1_010, 'p2', async () => true), true, 'another passphrase (cleared and set anew) starts afresh');
  assert.equal(await lockout.check(1_000 + PASSPHRASE_WINDOW_SECONDS, 'p1', async () => true), true, 'the first wrong one left the window');
});

import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { test } from 'node:test';
import { DataDirError } from '../../src/datadir/data-dir-error.js';
import { daemonLockPath, lockDataDir, readLockOwner } from '../../src/datadir/daemon-lock.js';
import { tempHome } from './temp-home.js';

test('a lock naming another live process is refused with its pid and start time; the file is left alone', () => {
  const home = tempHome();
  // pid 1 always runs.
  const text = `${JSON.stringify({ pid: 1, started_at: '2026-01-02T03:04:05.000Z' })}\n`;
  writeFileSync(daemonLockPath(home), text, { mode: 0o600 });
  assert.throws(
    () => lockDataDir(home),
    (error: unknown) => error instanceof DataDirError && error.code === 'locked' && error.file === daemonLockPath(home) && /pid 1, started 2026-01-02T03:04:05.000Z/.test(error.message) && error.fix.includes('kill 1'),
  );
  assert.equal(readFileSync(daemonLockPath(home), 'utf8'), text);
});

test('a stale lock (a pid that is gone, this process in an earlier life, or unreadable text) is taken over', () => {
  for (const stale of [JSON.stringify({ pid: 2 ** 31 - 2, started_at: 'x' }), JSON.stringify({ pid: process.pid, started_at: 'x' }), 'not a lock']) {
    const home = tempHome();
    writeFileSync(daemonLockPath(home), stale, { mode: 0o600 });
    const lock = lockDataDir(home);
    assert.equal(readLockOwner(home)?.pid, process.pid, stale);
    lock.release();
    assert.equal(existsSync(daemonLockPath(home)), false, stale);
    assert.deepEqual(readdirSync(home), [], `${stale}: nothing left aside`);
  }
});

test('daemons of one process share the lock; it goes when the last of them releases it, once each', () => {
  const home = tempHome();
  const first = lockDataDir(home);
  const second = lockDataDir(home);
  first.release();
  first.release();
  assert.equal(readLockOwner(home)?.pid, process.pid, 'still held by the second');
  second.release();
  assert.equal(existsSync(daemonLockPath(home)), false);
});

test('a lock file another user could read or write is refused like any data file', () => {
  const home = tempHome();
  writeFileSync(daemonLockPath(home), JSON.stringify({ pid: 2 ** 31 - 2, started_at: 'x' }), { mode: 0o644 });
  assert.throws(() => lockDataDir(home), (error: unknown) => error instanceof DataDirError && error.code === 'insecure_permissions');
});

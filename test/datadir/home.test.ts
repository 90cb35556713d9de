import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync, chmodSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DATA_FILES, ensureHome, knownDataFiles, resolveHome } from '../../src/datadir/home.js';

test('resolveHome: LATCH_HOME wins, empty falls back to ~/.latch, relative becomes absolute', () => {
  const cases: Array<{ env: NodeJS.ProcessEnv; want: string }> = [
    { env: { LATCH_HOME: '/srv/latch' }, want: '/srv/latch' },
    { env: { LATCH_HOME: '/srv/latch/' }, want: '/srv/latch' },
    { env: {}, want: path.join(os.homedir(), '.latch') },
    { env: { LATCH_HOME: '' }, want: path.join(os.homedir(), '.latch') },
    { env: { LATCH_HOME: 'rel/dir' }, want: path.resolve('rel/dir') },
  ];
  for (const { env, want } of cases) assert.equal(resolveHome(env), want, JSON.stringify(env));
});

test('ensureHome creates the directory at 0700 under any umask, with parents as needed', () => {
  const parent = mkdtempSync(path.join(os.tmpdir(), 'latch-home-'));
  const previous = process.umask();
  try {
    for (const umask of [0o000, 0o022, 0o077, 0o277]) {
      process.umask(umask);
      // Parents are created under the umask too, so only the last level is new here; a parent at
      // 0500 would stop a non-root run from creating anything inside it.
      const home = path.join(parent, `u${umask.toString(8)}`);
      ensureHome(home);
      assert.equal(statSync(home).mode & 0o777, 0o700, `umask ${umask.toString(8)}`);
    }
    process.umask(0o022);
    const nested = path.join(parent, 'a', 'b', '.latch');
    ensureHome(nested);
    assert.equal(statSync(nested).mode & 0o777, 0o700);
  } finally {
    process.umask(previous);
    rmSync(parent, { recursive: true, force: true });
  }
});

test('ensureHome leaves an existing directory as it is (loose modes are refused later, not repaired)', () => {
  const parent = mkdtempSync(path.join(os.tmpdir(), 'latch-home-'));
  try {
    const home = path.join(parent, 'h');
    ensureHome(home);
    chmodSync(home, 0o755);
    ensureHome(home);
    assert.equal(statSync(home).mode & 0o777, 0o755);
  } finally {
    rmSync(parent, { recursive: true, force: true });
  }
});

test('knownDataFiles lists every file of decisions §1 plus the audit head, the staged key, the state journal, the brake, the policy, its removal marker, the approval passphrase, the daemon lock, where the daemon listens, the passkeys and the AP2 mandate keys', () => {
  const files = knownDataFiles('/h').map((file) => path.basename(file)).sort();
  assert.deepEqual(files, ['approval_passphrase', 'audit.head', 'audit.log', 'config.json', 'daemon.lock', 'daemon_token', 'device.key', 'device.key.next', 'listen.json', 'mandate.key', 'mandate.retired.json', 'passkeys.json', 'paused', 'policy.json', 'policy.removed', 'state.journal']);
  assert.equal(Object.keys(DATA_FILES).length, files.length);
});

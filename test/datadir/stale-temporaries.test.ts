import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { temporaryPath } from '../../src/datadir/atomic-file.js';
import { DATA_FILES, ensureHome, removeDataDirTemporaries } from '../../src/datadir/home.js';
import { STALE_TEMPORARY_AGE_MS } from '../../src/datadir/stale-temporaries.js';

const root = mkdtempSync(path.join(tmpdir(), 'latch-stale-'));
after(() => rmSync(root, { recursive: true, force: true }));

const OLD = new Date(Date.now() - 2 * STALE_TEMPORARY_AGE_MS);

/** makeHome writes each named file (old unless listed as fresh) into a new 0700 directory. */
function makeHome(name: string, files: Record<string, 'old' | 'fresh' | 'dir'>): string {
  const home = path.join(root, name);
  mkdirSync(home, { mode: 0o700 });
  chmodSync(home, 0o700);
  for (const [file, age] of Object.entries(files)) {
    const target = path.join(home, file);
    if (age === 'dir') mkdirSync(target);
    else writeFileSync(target, 'secret', { mode: 0o600 });
    if (age !== 'fresh') utimesSync(target, OLD, OLD);
  }
  return home;
}

const FILES = {
  '.daemon_token.0123456789abcdef.tmp': 'old',
  '.device.key.0123456789abcdef.tmp': 'old',
  '.config.json.0123456789abcdef.tmp': 'old',
  '.audit.head.0123456789abcdef.tmp': 'old',
  '.audit.lock.0123456789abcdef.tmp': 'old',
  '.audit.lock.0123456789abcdef.stale': 'old',
  '.daemon_token.fedcba9876543210.tmp': 'fresh',
  '.device.key.0123456789ABCDEF.tmp': 'old',
  '.device.key.0123.tmp': 'old',
  '.notes.0123456789abcdef.tmp': 'old',
  'device.key': 'old',
  'daemon_token': 'old',
  '.config.json.1111111111111111.tmp': 'dir',
} as const;

const KEPT = ['.config.json.1111111111111111.tmp', '.daemon_token.fedcba9876543210.tmp', '.device.key.0123.tmp', '.device.key.0123456789ABCDEF.tmp', '.notes.0123456789abcdef.tmp', 'daemon_token', 'device.key'];

test('removeStaleTemporaries removes only abandoned Latch temporaries: old, regular, named exactly so', () => {
  const home = makeHome('direct', FILES);
  assert.equal(removeDataDirTemporaries(home), 6);
  assert.deepEqual(readdirSync(home).sort(), KEPT);
});

test('ensureHome on an existing directory cleans it the same way; a missing directory is no error', () => {
  const home = makeHome('ensure', FILES);
  ensureHome(home);
  assert.deepEqual(readdirSync(home).sort(), KEPT);
  assert.equal(removeDataDirTemporaries(path.join(root, 'missing')), 0);
});

test('the temporary of every file Latch writes is cleaned, in the data directory and in agents/', () => {
  const home = path.join(root, 'every');
  mkdirSync(path.join(home, 'agents'), { recursive: true, mode: 0o700 });
  // Named exactly as the writers name them (atomic-file.ts, audit-lock.ts, the journal's compaction).
  const targets = [...Object.values(DATA_FILES), 'audit.lock', 'sandbox.json'].map((name) => path.join(home, name));
  targets.push(path.join(home, 'agents', 'shopper.token'), path.join(home, 'agents', 'shopper.json'));
  const written = targets.map((target) => {
    const temporary = temporaryPath(target);
    writeFileSync(temporary, 'secret', { mode: 0o600 });
    utimesSync(temporary, OLD, OLD);
    return path.relative(home, temporary);
  });
  for (const name of ['.device.key.next', '.approval_passphrase', 'agents/.shopper.token']) assert.ok(written.some((file) => file.startsWith(name)), name);
  const stranger = path.join(home, 'agents', '.notes.0123456789abcdef.tmp');
  writeFileSync(stranger, 'not ours', { mode: 0o600 });
  utimesSync(stranger, OLD, OLD);
  ensureHome(home);
  assert.deepEqual(readdirSync(home).sort(), ['agents']);
  assert.deepEqual(readdirSync(path.join(home, 'agents')), ['.notes.0123456789abcdef.tmp']);
});

test('an agents link is not followed: what it points at is left alone', () => {
  const home = path.join(root, 'linked');
  const elsewhere = path.join(root, 'elsewhere');
  mkdirSync(home, { mode: 0o700 });
  mkdirSync(elsewhere, { mode: 0o700 });
  const temporary = path.join(elsewhere, '.shopper.token.0123456789abcdef.tmp');
  writeFileSync(temporary, 'not through a link', { mode: 0o600 });
  utimesSync(temporary, OLD, OLD);
  symlinkSync(elsewhere, path.join(home, 'agents'));
  assert.equal(removeDataDirTemporaries(home), 0);
  assert.deepEqual(readdirSync(elsewhere), ['.shopper.token.0123456789abcdef.tmp']);
});

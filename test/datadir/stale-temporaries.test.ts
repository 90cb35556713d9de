import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { ensureHome } from '../../src/datadir/home.js';
import { removeStaleTemporaries, STALE_TEMPORARY_AGE_MS } from '../../src/datadir/stale-temporaries.js';

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
  assert.equal(removeStaleTemporaries(home), 6);
  assert.deepEqual(readdirSync(home).sort(), KEPT);
});

test('ensureHome on an existing directory cleans it the same way; a missing directory is no error', () => {
  const home = makeHome('ensure', FILES);
  ensureHome(home);
  assert.deepEqual(readdirSync(home).sort(), KEPT);
  assert.equal(removeStaleTemporaries(path.join(root, 'missing')), 0);
});

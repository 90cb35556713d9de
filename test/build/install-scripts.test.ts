/**
 * npm 11 warns about dependencies whose install scripts nobody approved, and a later npm blocks
 * them (issue 30 item 7). package.json's `allowScripts` approves exactly the packages of the
 * lockfile that have install scripts (esbuild's postinstall fetches its platform binary, which
 * the build needs), so `npm ci` stays quiet and keeps working.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { REPO_ROOT } from '../support/paths.js';

interface Lockfile {
  packages: Record<string, { hasInstallScript?: boolean }>;
}

const manifest = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { allowScripts?: Record<string, boolean> };
const lock = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package-lock.json'), 'utf8')) as Lockfile;

test('allowScripts approves exactly the locked packages that have install scripts', () => {
  const withScripts = Object.entries(lock.packages)
    .filter(([, entry]) => entry.hasInstallScript === true)
    .map(([where]) => where.slice(where.lastIndexOf('node_modules/') + 'node_modules/'.length))
    .sort();
  assert.ok(withScripts.includes('esbuild'), 'the control: esbuild has a postinstall');
  const approved = Object.entries(manifest.allowScripts ?? {}).filter(([, allowed]) => allowed).map(([name]) => name.replace(/@[^@/]+$/, '')).sort();
  assert.deepEqual(approved, withScripts);
});

test('npm itself finds no unreviewed install scripts', { skip: !npmKnowsApproveScripts() && 'this npm has no approve-scripts (before npm 11)' }, () => {
  const out = execFileSync('npm', ['approve-scripts', '--allow-scripts-pending'], { cwd: REPO_ROOT, encoding: 'utf8', timeout: 60_000 });
  assert.match(out, /No packages with unreviewed install scripts/);
});

function npmKnowsApproveScripts(): boolean {
  try {
    return Number(execFileSync('npm', ['--version'], { encoding: 'utf8', timeout: 30_000 }).split('.')[0]) >= 11;
  } catch {
    return false;
  }
}

/**
 * bin/latch.js never runs a stale bundle silently (issue 30 item 8, docs/decisions.md §19): in a
 * source checkout it runs the sources even when dist/latch.cjs exists; without tsx it runs the
 * bundle only when no source is newer, and otherwise says how to rebuild; in a package (no
 * sources) it runs the bundle. Stand-in sources and bundle print which one ran.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { REPO_ROOT } from '../support/paths.js';

let root: string;
before(() => {
  root = mkdtempSync(path.join(os.tmpdir(), 'latch-bin-'));
});
after(() => rmSync(root, { recursive: true, force: true }));

/** checkout makes a folder with bin/latch.js, and optionally sources, a bundle and node_modules (tsx). */
function checkout(name: string, parts: { sources: boolean; bundle: boolean; tsx: boolean }): string {
  const dir = path.join(root, name);
  mkdirSync(path.join(dir, 'bin'), { recursive: true });
  copyFileSync(path.join(REPO_ROOT, 'bin', 'latch.js'), path.join(dir, 'bin', 'latch.js'));
  copyFileSync(path.join(REPO_ROOT, 'package.json'), path.join(dir, 'package.json'));
  if (parts.sources) {
    mkdirSync(path.join(dir, 'src', 'cli'), { recursive: true });
    writeFileSync(path.join(dir, 'src', 'cli', 'bin-entry.ts'), "const ran: string = 'sources';\nprocess.stdout.write(`${ran}\\n`);\n");
  }
  if (parts.bundle) {
    mkdirSync(path.join(dir, 'dist'));
    writeFileSync(path.join(dir, 'dist', 'latch.cjs'), "process.stdout.write('bundle\\n');\n");
  }
  if (parts.tsx) symlinkSync(path.join(REPO_ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  return dir;
}

function run(dir: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [path.join(dir, 'bin', 'latch.js'), '--version'], { cwd: dir, timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1, stdout, stderr });
    });
  });
}

/** age sets a file's modification time seconds before now. */
function age(file: string, seconds: number): void {
  const when = new Date(Date.now() - seconds * 1000);
  utimesSync(file, when, when);
}

describe('bin/latch.js and a stale bundle', () => {
  test('a source checkout with tsx runs the sources, even when a (newer) bundle exists', async () => {
    const dir = checkout('with-tsx', { sources: true, bundle: true, tsx: true });
    age(path.join(dir, 'src', 'cli', 'bin-entry.ts'), 3600);
    const result = await run(dir);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, 'sources\n');
  });

  test('without tsx, a bundle older than the sources is refused with the rebuild command', async () => {
    const dir = checkout('stale', { sources: true, bundle: true, tsx: false });
    age(path.join(dir, 'dist', 'latch.cjs'), 3600);
    const result = await run(dir);
    assert.equal(result.code, 1);
    assert.equal(result.stdout, '');
    assert.match(result.stderr, /dist\/latch\.cjs is older than the sources in src\/.*npm run build:js/);
  });

  test('without tsx, a bundle at least as new as every source runs', async () => {
    const dir = checkout('fresh', { sources: true, bundle: true, tsx: false });
    age(path.join(dir, 'src', 'cli', 'bin-entry.ts'), 3600);
    const result = await run(dir);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, 'bundle\n');
  });

  test('without tsx or a bundle: says to install the dev dependencies or build', async () => {
    const result = await run(checkout('bare', { sources: true, bundle: false, tsx: false }));
    assert.equal(result.code, 1);
    assert.match(result.stderr, /dist\/latch\.cjs is missing\. Install the dev dependencies \(npm ci\).*npm run build:js/);
  });

  test('an installed package (no sources) runs its bundle', async () => {
    const result = await run(checkout('package', { sources: false, bundle: true, tsx: false }));
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, 'bundle\n');
  });
});

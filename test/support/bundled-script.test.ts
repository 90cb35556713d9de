/**
 * The test bundles (bundled-script.ts): a bundle runs the CLI as tsx does, and a bundle is never
 * used for sources other than those it was built from.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { packageVersion } from '../../scripts/build-bundles.js';
import { bundledScript, digestOfSources } from './bundled-script.js';

test('the bundled CLI runs as `node --import tsx src/cli/main.ts` does, and is built once', () => {
  const file = bundledScript('src/cli/main.ts');
  assert.equal(bundledScript('src/cli/main.ts'), file, 'the second call uses the cached bundle');
  const run = spawnSync(process.execPath, [file, '--version'], { encoding: 'utf8', timeout: 30_000, env: { PATH: process.env['PATH'] } });
  assert.equal(run.status, 0, run.stderr);
  assert.equal(run.stdout, `${packageVersion()}\n`);
});

test('the cache key changes with any byte or new file under src/ or test/, the build script and the manifest', () => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'latch-bundle-key-'));
  try {
    mkdirSync(path.join(root, 'src', 'cli'), { recursive: true });
    mkdirSync(path.join(root, 'test', 'support'), { recursive: true });
    mkdirSync(path.join(root, 'scripts'));
    writeFileSync(path.join(root, 'src', 'cli', 'main.ts'), 'export const a = 1;\n');
    writeFileSync(path.join(root, 'test', 'support', 'writer.ts'), 'export const b = 2;\n');
    writeFileSync(path.join(root, 'scripts', 'build-bundles.ts'), 'export {};\n');
    const seen = new Set([digestOfSources(root)]);
    assert.equal(digestOfSources(root), [...seen][0], 'the key is stable');
    const changes: Array<[string, () => void]> = [
      ['a byte of a source', () => writeFileSync(path.join(root, 'src', 'cli', 'main.ts'), 'export const a = 2;\n')],
      ['a byte of a test helper', () => writeFileSync(path.join(root, 'test', 'support', 'writer.ts'), 'export const b = 3;\n')],
      ['a new file', () => writeFileSync(path.join(root, 'src', 'new.ts'), '')],
      ['the build script', () => writeFileSync(path.join(root, 'scripts', 'build-bundles.ts'), 'export { };\n')],
      ['package.json', () => writeFileSync(path.join(root, 'package.json'), '{}')],
    ];
    for (const [what, change] of changes) {
      change();
      const digest = digestOfSources(root);
      assert.ok(!seen.has(digest), `${what} changed no key`);
      seen.add(digest);
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

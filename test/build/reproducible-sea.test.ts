/**
 * The single binary is reproducible (docs/decisions.md §24.2): two checkouts of one commit, in
 * directories of different names and depths, build byte-identical binaries, code cache included.
 * The checkouts are copies of this tree's sources with their own node_modules/@noble, so no path
 * of this checkout can leak into either build.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { bundleCli, REPO_ROOT } from '../../scripts/build-bundles.js';
import { buildSea } from '../../scripts/build-sea.js';

const root = mkdtempSync(path.join(os.tmpdir(), 'latch-repro-'));
after(() => rmSync(root, { recursive: true, force: true }));

/** checkout copies what a build reads (sources, manifest, compiler settings, the noble packages) to dir. */
function checkout(dir: string): string {
  mkdirSync(dir, { recursive: true });
  for (const entry of ['src', 'package.json', 'tsconfig.json', 'node_modules/@noble']) cpSync(path.join(REPO_ROOT, entry), path.join(dir, entry), { recursive: true });
  return dir;
}

const canBuild = process.platform === 'linux' && spawnSync('strip', ['--version']).status === 0;

test('two checkouts in different directories build byte-identical binaries', { skip: canBuild ? false : 'build:sea needs Linux and binutils strip' }, async () => {
  const builds = [];
  for (const dir of [path.join(root, 'a'), path.join(root, 'second-checkout', 'of', 'latch')]) {
    const source = checkout(dir);
    const cli = await bundleCli(path.join(source, 'dist', 'latch.cjs'), source);
    const workDir = path.join(source, 'sea-work');
    mkdirSync(workDir);
    const sea = buildSea({ script: cli.file, outFile: path.join(source, 'dist', 'latch'), workDir });
    builds.push({ dir: source, sea, binary: readFileSync(path.join(source, 'dist', 'latch')) });
  }
  const [first, second] = builds;
  assert.ok(first !== undefined && second !== undefined);
  assert.match(first.sea.sha256, /^[0-9a-f]{64}$/);
  assert.equal(first.sea.sha256, second.sea.sha256, 'the two builds differ');
  assert.ok(first.binary.equals(second.binary));
  // Neither checkout's path is inside: the blob names its script by a relative name.
  for (const build of builds) {
    assert.equal(build.binary.indexOf(Buffer.from(root)), -1, `${build.dir} is embedded in the binary`);
    assert.equal(build.binary.indexOf(Buffer.from(REPO_ROOT)), -1);
  }
});

/**
 * What `npm pack` puts in the package: package.json's `files`, `bin` and `exports` agree, the
 * tarball holds no sources, tests or tooling, and the runtime dependencies are the two noble
 * packages. The listing comes from npm itself (a dry run, without building).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { before, describe, test } from 'node:test';
import { REPO_ROOT } from '../../scripts/build-bundles.js';

interface Manifest {
  bin: Record<string, string>;
  exports: Record<string, string | Record<string, string>>;
  files: string[];
  dependencies: Record<string, string>;
  scripts: Record<string, string>;
}

const manifest = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as Manifest;

/** packedPaths asks npm which files a pack would include, as it sees the tree now. */
function packedPaths(): string[] {
  const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: REPO_ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 60_000 });
  const [report] = JSON.parse(out) as Array<{ files: Array<{ path: string }> }>;
  assert.ok(report !== undefined);
  return report.files.map((f) => f.path);
}

/** coveredByFiles reports whether `files` names this path (an exact file, or a directory with a trailing slash). */
function coveredByFiles(file: string): boolean {
  const normalized = file.replace(/^\.\//, '');
  return manifest.files.some((entry) => (entry.endsWith('/') ? normalized.startsWith(entry) : normalized === entry));
}

describe('the npm package', () => {
  let packed: string[];
  before(() => {
    packed = packedPaths();
  });

  test('contains no sources, tests, scripts or tooling', () => {
    const forbidden = /^(src|test|scripts|bench|coverage|node_modules|\.ci|\.git)\/|^tsconfig\.json$|\.ts$/;
    const declarations = /^dist\/types\/.*\.d\.ts$/;
    assert.deepEqual(
      packed.filter((file) => forbidden.test(file) && !declarations.test(file)),
      [],
    );
    assert.ok(packed.includes('package.json'));
    assert.ok(packed.includes('bin/latch.js'));
  });

  test('every packed file is one that `files` names (or that npm always adds)', () => {
    const alwaysAdded = /^(package\.json|README(\.md)?|LICEN[CS]E(\.md)?)$/i;
    assert.deepEqual(
      packed.filter((file) => !alwaysAdded.test(file) && !coveredByFiles(file)),
      [],
    );
  });

  test('every relative link in the packed Markdown files points to a packed file', () => {
    const markdown = packed.filter((file) => file.endsWith('.md'));
    assert.ok(markdown.includes('README.md') && markdown.includes('docs/packaging.md'), markdown.join(', '));
    const broken: string[] = [];
    for (const file of markdown) {
      const text = readFileSync(path.join(REPO_ROOT, file), 'utf8');
      for (const match of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = (match[1] as string).split('#')[0] as string;
        if (target === '' || /^[a-z]+:/.test(target)) continue;
        const resolved = path.posix.normalize(path.posix.join(path.posix.dirname(file), target));
        if (!packed.includes(resolved)) broken.push(`${file} -> ${target}`);
      }
    }
    assert.deepEqual(broken, []);
  });

  test('bin and every export target are inside the package', () => {
    const targets = [...Object.values(manifest.bin), ...Object.values(manifest.exports).flatMap((target) => (typeof target === 'string' ? [target] : Object.values(target)))];
    assert.ok(targets.length >= 4);
    for (const target of targets) assert.ok(coveredByFiles(target) || target === './package.json', `${target} is packed`);
    assert.equal(manifest.bin['latch'], 'bin/latch.js');
  });

  test('runtime dependencies are exactly the two noble packages, pinned', () => {
    assert.deepEqual(Object.keys(manifest.dependencies).sort(), ['@noble/ed25519', '@noble/hashes']);
    for (const version of Object.values(manifest.dependencies)) assert.match(version, /^\d+\.\d+\.\d+$/);
  });

  test('packing builds the bundles first (prepack), so a tarball never ships a stale or missing dist/', () => {
    assert.match(manifest.scripts['prepack'] ?? '', /scripts\/build\.ts/);
  });
});

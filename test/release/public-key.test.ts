/**
 * The maintainers' release key (docs/decisions.md §38.2): README.md and docs/packaging.md publish
 * one and the same minisign public key, and no minisign secret key is in the repository (every
 * file git tracks is read, so a key added anywhere later is found).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { REPO_ROOT } from '../../scripts/build-bundles.js';

/** A minisign public key as `minisign -P` takes it: base64 of "Ed" ‖ key id (8) ‖ key (32). */
const PUBLIC_KEY = /\bRW[A-Za-z0-9+/]{54}\b/g;

function publishedKeys(file: string): string[] {
  return [...new Set(readFileSync(path.join(REPO_ROOT, file), 'utf8').match(PUBLIC_KEY) ?? [])];
}

test('README.md and docs/packaging.md publish the same single minisign public key', () => {
  const readme = publishedKeys('README.md');
  const packaging = publishedKeys('docs/packaging.md');
  assert.equal(readme.length, 1, `README.md names ${readme.length} keys`);
  assert.deepEqual(packaging, readme);
  const bytes = Buffer.from(readme[0] as string, 'base64');
  assert.equal(bytes.length, 42);
  assert.equal(bytes.subarray(0, 2).toString('latin1'), 'Ed');
  const keyId = Buffer.from(bytes.subarray(2, 10)).reverse().toString('hex').toUpperCase();
  assert.match(readFileSync(path.join(REPO_ROOT, 'docs/packaging.md'), 'utf8'), new RegExp(`key id \`${keyId}\``), 'packaging.md names the key id minisign prints');
});

test('no minisign secret key is in any file git tracks', () => {
  const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: REPO_ROOT, encoding: 'utf8' }).split('\0').filter((file) => file !== '');
  assert.ok(tracked.length > 100, 'git lists the tree');
  const offenders: string[] = [];
  for (const file of tracked) {
    let text: string;
    try {
      text = readFileSync(path.join(REPO_ROOT, file), 'latin1');
    } catch {
      continue;
    }
    // A secret key is base64 of 158 bytes: "Ed" ‖ kdf ("\0\0" or "Sc") ‖ "B2" ‖ salt, limits, key.
    const secret = (text.match(/RW[A-Za-z0-9+/]{206,}={0,2}/g) ?? []).some((token) => {
      const bytes = Buffer.from(token, 'base64');
      return bytes.length === 158 && bytes.subarray(0, 2).toString('latin1') === 'Ed' && bytes.subarray(4, 6).toString('latin1') === 'B2';
    });
    if (secret) offenders.push(file);
  }
  assert.deepEqual(offenders, []);
});

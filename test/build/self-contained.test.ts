import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { REPO_ROOT } from '../support/paths.js';

// `npm test` must pass on a fresh clone and nothing else (issue 30 item 2): no test may read the
// spec folder or vectors that lie beside the repository in a development checkout.

const THIS_FILE = fileURLToPath(import.meta.url);

/** Text that reaches outside the repository: the old shared-folder constant and relative paths to it. */
const OUTSIDE_PATTERNS: readonly RegExp[] = [/\.\.\/shared\b/, /SHARED_DIR/, /['"]\.\.['"],\s*['"]shared['"]/, /\/work\//];

/** outsideReferences returns the patterns a text matches. */
function outsideReferences(text: string): string[] {
  return OUTSIDE_PATTERNS.filter((pattern) => pattern.test(text)).map(String);
}

function filesUnder(folder: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const full = path.join(folder, entry.name);
    if (entry.isDirectory()) files.push(...filesUnder(full));
    else if (entry.isFile()) files.push(full);
  }
  return files;
}

test('the scanner flags each way a test could reach the shared folder', () => {
  // The samples are put together at run time, so that this file itself reads as clean to any scan.
  const up = '..';
  const folder = 'sha' + 'red';
  for (const sample of [`readFileSync('${up}/${folder}/vectors/x.json')`, 'path.join(SHARED_DIR, "v")', `path.resolve(REPO_ROOT, '${up}', '${folder}')`, `'/work/${folder}/spec'`]) {
    assert.notDeepEqual(outsideReferences(sample), [], sample);
  }
  assert.deepEqual(outsideReferences("new URL('./vectors/rfc9421-ed25519.json', import.meta.url)"), []);
});

test('nothing under test/ reads outside the repository (no ../shared, no SHARED_DIR)', () => {
  const files = filesUnder(path.join(REPO_ROOT, 'test')).filter((file) => file !== THIS_FILE);
  assert.ok(files.length > 100, `expected the whole test tree, found ${files.length} files`);
  const offenders = files.flatMap((file) => {
    const found = outsideReferences(readFileSync(file, 'utf8'));
    return found.length === 0 ? [] : [`${path.relative(REPO_ROOT, file)}: ${found.join(', ')}`];
  });
  assert.deepEqual(offenders, []);
});

test('the RFC 9421 §B.2.6 vector lives in the repository', () => {
  const vector = JSON.parse(readFileSync(path.join(REPO_ROOT, 'test', 'crypto', 'vectors', 'rfc9421-ed25519.json'), 'utf8')) as { source: string; key: { keyid: string } };
  assert.match(vector.source, /RFC 9421/);
  assert.equal(vector.key.keyid, 'test-key-ed25519');
});

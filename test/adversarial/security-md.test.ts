/**
 * SECURITY.md names the test that proves each defense. This keeps the names honest: every test
 * file it cites exists, and every quoted test name can be found in that file (a `*` or a number in
 * a name stands for a value filled in at run time, so only the fixed text between them is
 * matched).
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { REPO_ROOT } from '../support/paths.js';

const TEST_FILE = /^[\w/.-]+\.test\.ts$/;
/** Spans of fixed text shorter than this are too generic to prove anything. */
const FRAGMENT_CHARS_MIN = 12;

interface Citation {
  file: string;
  name: string;
}

/**
 * citations reads every `file.test.ts` span and the list of quoted names right after it: spans
 * separated from it, and from each other, only by commas, colons, semicolons and white space.
 */
function citations(markdown: string): { files: string[]; names: Citation[] } {
  const files: string[] = [];
  const names: Citation[] = [];
  let current: string | undefined;
  let previousEnd = 0;
  for (const match of markdown.matchAll(/`([^`]+)`/g)) {
    const span = match[1] as string;
    const start = match.index ?? 0;
    const gap = markdown.slice(previousEnd, start);
    previousEnd = start + match[0].length;
    if (TEST_FILE.test(span)) {
      current = span;
      files.push(span);
      continue;
    }
    if (current !== undefined && /^[\s,:;]*$/.test(gap)) names.push({ file: current, name: span });
    else current = undefined;
  }
  return { files, names };
}

/** fragments splits a cited name into the fixed text a source title must contain. */
function fragments(name: string): string[] {
  return name
    .split(/\*|…|→|\b[ab]: |\d[\d,.]*(?: KiB| s)?/)
    .map((piece) => piece.trim())
    .filter((piece) => piece.length >= FRAGMENT_CHARS_MIN);
}

test('every test SECURITY.md cites exists, with the name it quotes', () => {
  const markdown = readFileSync(path.join(REPO_ROOT, 'SECURITY.md'), 'utf8');
  const { files, names } = citations(markdown);
  assert.ok(files.length >= 15 && names.length >= 40, `found ${files.length} files and ${names.length} names`);
  const missingFiles = [...new Set(files)].filter((file) => !existsSync(path.join(REPO_ROOT, 'test', file)));
  assert.deepEqual(missingFiles, [], 'cited test files that do not exist');
  const missingNames: string[] = [];
  for (const { file, name } of names) {
    const full = path.join(REPO_ROOT, 'test', file);
    if (!existsSync(full)) continue;
    const source = readFileSync(full, 'utf8');
    for (const fragment of fragments(name)) {
      if (!source.includes(fragment)) missingNames.push(`${file}: "${fragment}" (from \`${name}\`)`);
    }
  }
  assert.deepEqual(missingNames, [], 'quoted test names not found in their files');
});

/**
 * The documents keep their promises (issue 37 item 11): README.md stays within its budget,
 * SECURITY.md opens with its summary, and every table of exit codes is src/cli/exit-codes.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { EXIT } from '../../src/cli/exit-codes.js';
import { REPO_ROOT } from '../support/paths.js';

const read = (file: string): string => readFileSync(path.join(REPO_ROOT, file), 'utf8');

/** README's budget: what a newcomer reads; the rest belongs in docs/. */
const README_LINES_MAX = 450;
/** SECURITY.md's opening summary: what the default setup protects against and what the separate-user setup adds. */
const SUMMARY_LINES_MAX = 10;

test(`README.md is at most ${README_LINES_MAX} lines`, () => {
  const lines = read('README.md').split('\n').length - 1;
  assert.ok(lines <= README_LINES_MAX, `README.md has ${lines} lines; move detail to docs/`);
});

test(`SECURITY.md opens with a summary of at most ${SUMMARY_LINES_MAX} lines: the default setup, what it does not stop, the separate-user setup`, () => {
  const text = read('SECURITY.md');
  const sections = text.split(/^## /m);
  assert.match(sections[1] ?? '', /^In short\n/, 'the first section after the title is "In short"');
  const body = (sections[1] ?? '').split('\n').slice(1).filter((line) => line.trim() !== '');
  assert.ok(body.length > 0 && body.length <= SUMMARY_LINES_MAX, `the summary has ${body.length} lines`);
  const summary = body.join(' ');
  for (const must of ['default setup', 'does **not**', 'separate-user setup']) assert.ok(summary.includes(must), `the summary says ${must}`);
});

/** exitCodesIn reads the codes of the first Markdown table with a `| Code |` header after the line `after` finds. */
function exitCodesIn(file: string, after: RegExp): number[] {
  const text = read(file);
  const start = text.search(after);
  assert.ok(start >= 0, `${file} has its exit-code table`);
  const rows = text.slice(start).split('\n');
  const header = rows.findIndex((line) => /^\| Code \|/i.test(line));
  const codes: number[] = [];
  for (const line of rows.slice(header + 2)) {
    const match = /^\| (\d+) \|/.exec(line);
    if (match === null) break;
    codes.push(Number(match[1]));
  }
  return codes;
}

test('the exit-code tables of docs/cli.md and docs/errors.md are exactly src/cli/exit-codes.ts', () => {
  const expected = [...new Set(Object.values(EXIT))].sort((a, b) => a - b);
  assert.deepEqual(exitCodesIn('docs/cli.md', /^Exit codes:$/m), expected, 'docs/cli.md');
  assert.deepEqual(exitCodesIn('docs/errors.md', /^## Exit codes$/m), expected, 'docs/errors.md');
});

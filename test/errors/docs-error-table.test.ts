import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ERROR_TABLE, type ErrorCode } from '../../src/errors/error-table.js';
import { REPO_ROOT } from '../support/paths.js';

/** Rows of the error table in docs/errors.md: | `code` | status | class | remedy | */
function docsRows(): Map<string, string> {
  const page = readFileSync(path.join(REPO_ROOT, 'docs', 'errors.md'), 'utf8');
  const rows = new Map<string, string>();
  for (const line of page.split('\n')) {
    const match = /^\| `([a-z0-9_]+)` \| ([1-5][0-9]{2}(?: \/ [1-5][0-9]{2})*) \|/.exec(line);
    if (match !== null) rows.set(match[1] as string, (match[2] as string).trim());
  }
  return rows;
}

test('docs/errors.md error table lists every code of the error table with its HTTP status', () => {
  const rows = docsRows();
  for (const [code, spec] of Object.entries(ERROR_TABLE) as Array<[ErrorCode, (typeof ERROR_TABLE)[ErrorCode]]>) {
    assert.ok(rows.has(code), `docs/errors.md error table misses ${code}`);
    const statuses = [spec.status, ...('alternateStatuses' in spec ? spec.alternateStatuses : [])].join(' / ');
    assert.equal(rows.get(code), statuses, `docs/errors.md status of ${code}`);
  }
});

test('docs/errors.md error table names no code the error table lacks', () => {
  for (const code of docsRows().keys()) {
    assert.ok(Object.hasOwn(ERROR_TABLE, code), `docs/errors.md lists unknown code ${code}`);
  }
});

test('every error has a status, class, message and remedy', () => {
  for (const [code, spec] of Object.entries(ERROR_TABLE)) {
    assert.ok(spec.status >= 400 && spec.status <= 599, code);
    assert.ok(spec.specClass.length > 0 && spec.message.length > 0 && spec.remedy.length > 0, code);
  }
});

/** Whole rows of the error table in docs/errors.md: code → [class, remedy]. */
function docsClassesAndRemedies(): Map<string, [string, string]> {
  const page = readFileSync(path.join(REPO_ROOT, 'docs', 'errors.md'), 'utf8');
  const rows = new Map<string, [string, string]>();
  for (const line of page.split('\n')) {
    const match = /^\| `([a-z0-9_]+)` \| [0-9 /]+ \| ([^|]+) \| (.+) \|$/.exec(line);
    if (match !== null) rows.set(match[1] as string, [(match[2] as string).trim(), (match[3] as string).trim()]);
  }
  return rows;
}

test('docs/errors.md error table shows each code\'s class and remedy as the error table has them', () => {
  const rows = docsClassesAndRemedies();
  for (const [code, spec] of Object.entries(ERROR_TABLE)) {
    assert.deepEqual(rows.get(code), [spec.specClass, spec.remedy], `docs/errors.md row of ${code}`);
  }
});

const honestLabels: Array<[ErrorCode, string]> = [
  ['authorization_not_active', 'Authorization not active'],
  ['setup_token_invalid', 'Setup token invalid'],
  ['setup_token_expired', 'Setup token expired'],
];
for (const [code, specClass] of honestLabels) {
  test(`${code} is labelled ${specClass}`, () => assert.equal(ERROR_TABLE[code].specClass, specClass));
}

test('no remedy sends the user to a place Latch does not have (a dashboard, a Devices area, the spec)', () => {
  for (const [code, spec] of Object.entries(ERROR_TABLE)) {
    for (const text of [spec.message, spec.remedy]) {
      assert.doesNotMatch(text, /dashboard|Devices area|spec §|\.\.\/shared/i, code);
    }
  }
  for (const code of ['setup_token_expired', 'setup_token_invalid'] as const) {
    assert.match(ERROR_TABLE[code].remedy, /latch sandbox setup-token/, code);
  }
});

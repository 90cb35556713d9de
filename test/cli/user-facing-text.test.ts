/**
 * What users read speaks for Latch itself: no help text, client remedy or README line cites the
 * spec's sections or files that only the builders have.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { CLIENT_ERROR_TABLE } from '../../src/client/client-errors.js';
import { COMMANDS } from '../../src/cli/command-list.js';
import { ERROR_TABLE } from '../../src/errors/error-table.js';
import { REPO_ROOT } from '../support/paths.js';

const FOREIGN_REFERENCE = /spec §|spec's §|\.\.\/shared|Devices area|the dashboard/i;

test('no command\'s summary or help cites the spec or a place Latch does not have', () => {
  for (const command of COMMANDS) {
    assert.doesNotMatch(`${command.summary}\n${command.usage}`, FOREIGN_REFERENCE, command.name);
  }
});

test('no error message or remedy, server or client, cites the spec', () => {
  for (const [code, spec] of [...Object.entries(ERROR_TABLE), ...Object.entries(CLIENT_ERROR_TABLE)]) {
    assert.doesNotMatch(`${spec.message}\n${spec.remedy}`, FOREIGN_REFERENCE, code);
  }
});

test('README cites no spec section and no file outside the repository', () => {
  const readme = readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');
  readme.split('\n').forEach((line, index) => assert.doesNotMatch(line, FOREIGN_REFERENCE, `README.md line ${index + 1}`));
});

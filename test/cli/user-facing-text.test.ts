/**
 * What users read speaks for Latch itself: no help text, client remedy, README or docs/ line cites the
 * spec's sections or files that only the builders have.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { CLIENT_ERROR_TABLE } from '../../src/client/client-errors.js';
import { loadCommands } from '../../src/cli/command-list.js';
import { ERROR_TABLE } from '../../src/errors/error-table.js';
import { REPO_ROOT } from '../support/paths.js';

const COMMANDS = await loadCommands();

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

test('README and docs/ cite no spec section and no file outside the repository', () => {
  const files = ['README.md', 'SECURITY.md', ...readdirSync(path.join(REPO_ROOT, 'docs')).filter((name) => name.endsWith('.md')).map((name) => path.join('docs', name))];
  for (const file of files) {
    const text = readFileSync(path.join(REPO_ROOT, file), 'utf8');
    text.split('\n').forEach((line, index) => assert.doesNotMatch(line, FOREIGN_REFERENCE, `${file} line ${index + 1}`));
  }
});

test('every link from README.md to a file of the repository leads to one', () => {
  const readme = readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');
  const targets = [...readme.matchAll(/\]\(((?:docs\/)?[A-Za-z0-9_.-]+\.md)(?:#[^)]*)?\)/g)].map((match) => match[1] as string);
  assert.ok(targets.length >= 10);
  for (const target of targets) assert.ok(existsSync(path.join(REPO_ROOT, target)), target);
});

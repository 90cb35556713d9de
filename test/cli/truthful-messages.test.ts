/**
 * Codes, classes and remedies that say what is true (issue 30 item 4): an invalid policy is not an
 * unavailable daemon and nothing was signed; the lockout's remedy holds after the passphrase was
 * cleared; a person at the terminal is not told to send a JSON body; and `passphrase clear` says
 * what the passphrase protects against.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { approvalsPassphraseClearCommand } from '../../src/cli/commands/approvals-passphrase.js';
import { reportCallError } from '../../src/cli/daemon-calls/daemon-call-command.js';
import { exitCodeForClientError } from '../../src/cli/daemon-calls/exit-for-error.js';
import { EXIT } from '../../src/cli/exit-codes.js';
import { LatchClientError } from '../../src/client/client-errors.js';
import { ERROR_TABLE } from '../../src/errors/error-table.js';
import { captureIo } from './cli-io.js';

test('policy_invalid is its own class, and the CLI exits 3 (fix a data file), never 1 (may have taken effect)', () => {
  assert.equal(ERROR_TABLE.policy_invalid.specClass, 'Policy invalid');
  assert.equal(exitCodeForClientError(new LatchClientError({ code: 'policy_invalid', status: 503 })), EXIT.dataDir);
  assert.equal(exitCodeForClientError(new LatchClientError({ code: 'data_directory_unavailable', status: 503 })), EXIT.dataDir);
});

test("the lockout's remedy does not assume a passphrase is still set", () => {
  const remedy = ERROR_TABLE.too_many_attempts.remedy;
  assert.doesNotMatch(remedy, /right passphrase/);
  assert.match(remedy, /if one is set/);
  assert.match(remedy, /cleared or changed/);
});

test('invalid_passphrase at the terminal: type it or --passphrase-stdin, no JSON body; --json keeps the API remedy', () => {
  const error = new LatchClientError({ code: 'invalid_passphrase', status: 401 });
  const human = captureIo({});
  assert.equal(reportCallError(error, human, 'approve', false), EXIT.refused);
  assert.doesNotMatch(human.stderr.text, /\{"passphrase"/);
  assert.match(human.stderr.text, /What to do: Run the command again and type the approval passphrase .*--passphrase-stdin/);
  const json = captureIo({});
  reportCallError(error, json, 'approve', true);
  assert.equal(JSON.parse(json.stdout.text).error.remedy, ERROR_TABLE.invalid_passphrase.remedy);
});

test('passphrase clear says what the passphrase protects against, truthfully', () => {
  const usage = approvalsPassphraseClearCommand.usage.replace(/\s+/g, ' ');
  assert.doesNotMatch(usage, /protects against agents that hold only an agent token/);
  assert.match(usage, /Agent tokens cannot approve at all, with or without it/);
  assert.match(usage, /does not protect against a program that runs as your user/);
});

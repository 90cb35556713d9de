/**
 * The command line as people type it (issue 44 item 5): a group's name prints the group's help,
 * global flags may come before the command, a misspelt command gets the nearest one, authorize's
 * help lists every exit code it can return, approve's help says when it asks to confirm. What each
 * test covers is derived from the command table, the error tables and the exit mapping.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runCli } from '../../src/cli/main.js';
import { COMMAND_LIST } from '../../src/cli/command-list.js';
import { editDistance, hoistGlobalFlags, nearestCommand } from '../../src/cli/command-lookup.js';
import { EXIT } from '../../src/cli/exit-codes.js';
import { exitCodeForClientError } from '../../src/cli/daemon-calls/exit-for-error.js';
import { describeFailure } from '../../src/cli/report-error.js';
import { UsageError } from '../../src/cli/command.js';
import { DataDirError } from '../../src/datadir/data-dir-error.js';
import { CLIENT_ERROR_TABLE, LatchClientError } from '../../src/client/client-errors.js';
import { ERROR_TABLE } from '../../src/errors/error-table.js';
import { APPROVE_QUESTION } from '../../src/cli/approvals/owner-input.js';
import { captureIo } from './cli-io.js';

const groups = [...new Set(COMMAND_LIST.map((c) => c.name.split(' ')).filter((words) => words.length > 1).map((words) => words[0] as string))].filter((group) => !COMMAND_LIST.some((c) => c.name === group));

test('a group without a command of its own (latch agent, latch policy, …) prints its commands: --help on stdout (0), bare on stderr (2)', async () => {
  assert.ok(groups.includes('agent') && groups.includes('policy'), groups.join());
  for (const group of groups) {
    const members = COMMAND_LIST.filter((c) => c.name.startsWith(`${group} `)).map((c) => c.name);
    const help = captureIo({});
    assert.equal(await runCli([group, '--help'], help), EXIT.ok, group);
    const bare = captureIo({});
    assert.equal(await runCli([group], bare), EXIT.usage, group);
    for (const member of members) {
      assert.ok(help.stdout.text.includes(`latch ${member} `), `${group} --help lists ${member}`);
      assert.ok(bare.stderr.text.includes(`latch ${member} `), `${group} lists ${member}`);
    }
    assert.doesNotMatch(bare.stderr.text, /unknown command/);
  }
  const typo = captureIo({});
  assert.equal(await runCli(['agent', 'ad'], typo), EXIT.usage);
  assert.match(typo.stderr.text, /unknown command "agent ad"; did you mean agent add\?/);
});

test('an unknown command names the nearest: one slip in any command name finds it', async () => {
  for (const { name } of COMMAND_LIST) {
    const words = name.split(' ');
    const first = words[0] as string;
    // Two neighbouring letters swapped in the first word, the slip people make most.
    const slipped = `${first.slice(0, 1)}${first.slice(2, 3)}${first.slice(1, 2)}${first.slice(3)}`;
    if (slipped === first) continue;
    const argv = [slipped, ...words.slice(1)];
    assert.ok(editDistance(argv.join(' '), name) === 1);
    const nearest = nearestCommand(argv, COMMAND_LIST.map((c) => c.name));
    assert.equal(nearest, name, `${argv.join(' ')} → ${nearest}`);
  }
  const io = captureIo({});
  assert.equal(await runCli(['authorise', '--card', 'card_x'], io), EXIT.usage);
  assert.match(io.stderr.text, /unknown command "authorise --card card_x"; did you mean authorize\?/);
  const far = captureIo({});
  assert.equal(await runCli(['frobnicate'], far), EXIT.usage);
  assert.doesNotMatch(far.stderr.text, /did you mean/);
  assert.match(far.stderr.text, /Commands:/);
});

test('global flags before the command: latch --agent shopper authorize … is latch authorize … --agent shopper', async () => {
  assert.deepEqual(hoistGlobalFlags(['--agent', 'shopper', 'authorize', '--card', 'card_x']), ['authorize', '--card', 'card_x', '--agent', 'shopper']);
  assert.deepEqual(hoistGlobalFlags(['--json', '--agent=shopper', 'cards']), ['cards', '--json', '--agent=shopper']);
  assert.deepEqual(hoistGlobalFlags(['cards', '--json']), ['cards', '--json']);
  const help = captureIo({});
  assert.equal(await runCli(['--agent', 'shopper', 'authorize', '--help'], help), EXIT.ok);
  assert.match(help.stdout.text, /^Usage: latch authorize/);
  // Run for real against no daemon: the command ran as the agent and reports the daemon, as JSON.
  const io = captureIo({ LATCH_HOME: '/nonexistent-latch-home', LATCH_URL: 'http://127.0.0.1:9' });
  const code = await runCli(['--json', '--agent', 'shopper', 'cards'], io);
  assert.equal(code, EXIT.daemonUnreachable, io.stderr.text + io.stdout.text);
  assert.equal((JSON.parse(io.stdout.text) as { error: { code: string } }).error.code, 'daemon_unreachable');
});

test('authorize --help lists every exit code authorize can return, and no other', async () => {
  const client = (code: string, status: number | null) => exitCodeForClientError(new LatchClientError({ code, status }));
  const fromErrors = [...Object.entries(ERROR_TABLE).map(([code, row]) => client(code, (row as { status: number }).status)), ...Object.keys(CLIENT_ERROR_TABLE).map((code) => client(code, null)), client('a_code_of_a_newer_daemon', 503), client('a_code_of_a_newer_daemon', 409)];
  const fromFailures = [new UsageError('x'), new DataDirError('corrupt', '/x', 'x', 'x'), new Error('unexpected')].map((error) => describeFailure(error, 'authorize').exitCode);
  const possible = new Set([EXIT.ok, EXIT.pendingApproval, ...fromErrors, ...fromFailures]);
  const io = captureIo({});
  assert.equal(await runCli(['authorize', '--help'], io), EXIT.ok);
  const paragraph = io.stdout.text.slice(io.stdout.text.indexOf('Exit codes:'));
  const listed = new Set([...paragraph.matchAll(/(?:Exit codes:|;)\s+([0-9]+) /g)].map((match) => Number(match[1])));
  assert.deepEqual([...possible].sort((a, b) => a - b), [...listed].sort((a, b) => a - b), paragraph);
});

test("approve --help says when it asks to confirm, in the words it asks with, in both setups", async () => {
  const io = captureIo({});
  assert.equal(await runCli(['approve', '--help'], io), EXIT.ok);
  assert.ok(io.stdout.text.includes(`"${APPROVE_QUESTION.trim()}"`), io.stdout.text);
  assert.match(io.stdout.text, /separate-user setup[^]*owner passphrase first[^]*--yes or\s+--passphrase-stdin skip the question/);
  assert.match(io.stdout.text, /typing it is the confirmation/);
});

/**
 * Every command takes --json and --agent NAME, and says so in its --help (issue 30 item 6,
 * docs/decisions.md §19). The walk covers the whole command table, so a new command without them
 * fails here. A command that is the owner's alone refuses --agent with agent_not_permitted (exit 7)
 * before it does anything; a client command runs as the agent.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { COMMAND_LIST, loadCommands } from '../../src/cli/command-list.js';
import { usageWithCommonOptions } from '../../src/cli/common-options.js';
import { EXIT } from '../../src/cli/exit-codes.js';
import { runLatch } from '../support/stack.js';

const COMMANDS = await loadCommands();

/** The commands that are the owner's alone: they work on the data directory or run a server. */
const OWNER_ONLY = new Set([
  'start', 'daemon', 'setup', 'sandbox', 'sandbox setup-token', 'sandbox clock', 'approve', 'deny', 'approvals watch',
  'approvals passphrase set', 'approvals passphrase clear', 'pause', 'resume', 'audit verify', 'token rotate',
  'agent add', 'agent list', 'agent rotate', 'agent remove', 'policy init', 'policy check-file', 'service install', 'service uninstall',
]);

/** Positional arguments a command needs before it looks at its flags. */
const POSITIONALS: Readonly<Record<string, string[]>> = {
  approve: ['ap_walk'], deny: ['ap_walk'], 'evidence verify': ['no-such-pack.json'], 'agent add': ['walker'], 'agent rotate': ['walker'], 'agent remove': ['walker'],
};

const FLAG_COMPLAINT = /unknown flag|unexpected argument|takes no value|given twice/;

let root: string;
let home: string;
let closedUrl: string;

before(async () => {
  root = mkdtempSync(path.join(os.tmpdir(), 'latch-common-'));
  home = path.join(root, 'home');
  mkdirSync(home, { mode: 0o700 });
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closedUrl = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  await new Promise<void>((resolve) => server.close(() => resolve()));
});
after(() => rmSync(root, { recursive: true, force: true }));

describe('every command takes --json and --agent NAME', () => {
  test('the walk covers the whole command table', () => {
    assert.deepEqual(COMMANDS.map((command) => command.name), COMMAND_LIST.map((row) => row.name));
    for (const name of OWNER_ONLY) assert.ok(COMMANDS.some((command) => command.name === name), `${name} is not a command`);
  });

  for (const command of COMMANDS) {
    test(`latch ${command.name}: --help lists --json and --agent NAME; both are accepted`, async () => {
      assert.match(command.usage, /^\s+--json\b/m, `${command.name} --help has no --json option line`);
      assert.match(command.usage, /^\s+--agent NAME\b/m, `${command.name} --help has no --agent NAME option line`);
      const help = await runLatch([...command.name.split(' '), '--help'], {});
      assert.equal(help.code, EXIT.ok);
      assert.match(help.stdout, /--json/);

      // mcp would serve stdin; an unusable LATCH_URL stops it at start, after its flags were read.
      const env = { LATCH_HOME: home, LATCH_URL: command.name === 'mcp' ? 'ftp://not-a-daemon' : closedUrl };
      const run = await runLatch([...command.name.split(' '), ...(POSITIONALS[command.name] ?? []), '--json', '--agent', 'walker'], env);
      const output = `${run.stdout}\n${run.stderr}`;
      assert.doesNotMatch(output, FLAG_COMPLAINT, `${command.name}: ${output}`);
      if (OWNER_ONLY.has(command.name)) {
        assert.equal(run.code, EXIT.refused, `${command.name}: ${output}`);
        assert.match(output, /agent_not_permitted/);
      } else if (command.name === 'mcp') {
        assert.equal(run.code, EXIT.usage);
        assert.match(run.stderr, /LATCH_URL/);
      } else if (command.name === 'audit') {
        // latch audit reads the local log; its --agent NAME picks that agent's lines.
        assert.equal(run.code, EXIT.ok, output);
        assert.deepEqual(JSON.parse(run.stdout).records, []);
      } else {
        // A client command runs as the agent: here its token file does not exist, or the daemon is not there.
        assert.notEqual(run.code, EXIT.ok, output);
      }
    });
  }

  test('latch approve ap_… --agent x is refused as the owner\'s, not "unexpected argument", and asks nothing', async () => {
    const run = await runLatch(['approve', 'ap_x', '--agent', 'x'], { LATCH_HOME: home, LATCH_URL: closedUrl });
    assert.equal(run.code, EXIT.refused, run.stderr);
    assert.match(run.stderr, /Agent not permitted \(agent_not_permitted\)/);
    assert.doesNotMatch(run.stderr, /unexpected argument|passphrase/i);
  });

  test('--json on a local command prints the result as one JSON value, and a data-directory failure as {"error"}', async () => {
    const paused = await runLatch(['pause', '--reason', 'walk', '--json'], { LATCH_HOME: home });
    assert.equal(paused.code, EXIT.ok, paused.stderr);
    assert.equal(JSON.parse(paused.stdout).paused.reason, 'walk');
    const resumed = await runLatch(['resume', '--json'], { LATCH_HOME: home });
    assert.deepEqual(JSON.parse(resumed.stdout), { resumed: true });
    const verified = await runLatch(['audit', 'verify', '--json'], { LATCH_HOME: home });
    assert.equal(JSON.parse(verified.stdout).ok, true);
    const missing = await runLatch(['agent', 'rotate', 'nobody', '--json'], { LATCH_HOME: home });
    assert.equal(missing.code, EXIT.dataDir);
    assert.equal(typeof JSON.parse(missing.stdout).error.fix, 'string');
  });

  test('usageWithCommonOptions adds only the lines that are missing, into the Options block', () => {
    const usage = 'Usage: latch x\n\nOptions:\n  --y   why\n\nExit codes: 0.';
    const added = usageWithCommonOptions(usage);
    assert.match(added, /Options:\n {2}--json .*\n {2}--agent NAME .*\n {2}--y/);
    assert.equal(usageWithCommonOptions(added), added);
    assert.match(usageWithCommonOptions('Usage: latch z\n\nExit codes: 0.'), /Options:\n {2}--json[^]*\n\nExit codes: 0\./);
  });
});

import assert from 'node:assert/strict';
import { appendFileSync, chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, test } from 'node:test';
import type { Command } from '../../src/cli/command.js';
import { COMMAND_LIST, loadCommands } from '../../src/cli/command-list.js';
import { EXIT } from '../../src/cli/exit-codes.js';
import { parseFlags, portFlag } from '../../src/cli/flags.js';
import { findCommand, runCli } from '../../src/cli/main.js';
import { auditLogPath } from '../../src/datadir/audit-log.js';
import { appendAudit } from '../support/audit-append.js';
import { ensureToken, readToken } from '../../src/datadir/token.js';
import { REPO_ROOT } from '../support/paths.js';
import { tempHome } from '../daemon/daemon-fixture.js';
import { captureIo } from './cli-io.js';

const COMMANDS = await loadCommands();

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length > 0) cleanups.pop()?.();
});

function home(): string {
  const dir = tempHome();
  cleanups.push(dir.remove);
  mkdirSync(dir.home, { mode: 0o700 });
  return dir.home;
}

describe('dispatcher', () => {
  test('--version prints package.json version', async () => {
    const io = captureIo({});
    assert.equal(await runCli(['--version'], io), EXIT.ok);
    const pkg = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
    assert.equal(io.stdout.text, `${pkg.version}\n`);
  });

  test('--help lists every command', async () => {
    const io = captureIo({});
    assert.equal(await runCli(['--help'], io), EXIT.ok);
    for (const command of COMMANDS) assert.ok(io.stdout.text.includes(command.name), command.name);
  });

  test('no arguments prints help to stderr and exits 2', async () => {
    const io = captureIo({});
    assert.equal(await runCli([], io), EXIT.usage);
    assert.match(io.stderr.text, /Usage: latch/);
  });

  test('an unknown command exits 2', async () => {
    for (const argv of [['nope'], ['token', 'nope'], ['audit-log']]) {
      const io = captureIo({});
      assert.equal(await runCli(argv, io), EXIT.usage, argv.join(' '));
      assert.match(io.stderr.text, /unknown command/);
    }
    // A group's bare name is not unknown: it lists the group's commands (issue 44 item 5).
    const group = captureIo({});
    assert.equal(await runCli(['token'], group), EXIT.usage);
    assert.match(group.stderr.text, /latch token rotate/);
  });

  test('--help after each command prints its usage', async () => {
    for (const command of COMMANDS) {
      const io = captureIo({});
      assert.equal(await runCli([...command.name.split(' '), '--help'], io), EXIT.ok);
      assert.equal(io.stdout.text, `${command.usage}\n`);
      assert.match(command.usage, /^Usage: latch /);
    }
  });

  test('findCommand prefers the longest matching name', () => {
    const make = (name: string): Command => ({ name, summary: '', usage: '', run: async () => 0 });
    const commands = [make('token'), make('token rotate')];
    assert.equal(findCommand(['token', 'rotate', '--x'], commands)?.command.name, 'token rotate');
    assert.deepEqual(findCommand(['token', 'rotate', '--x'], commands)?.args, ['--x']);
    assert.equal(findCommand(['token', 'show'], commands)?.command.name, 'token');
    assert.equal(findCommand(['rotate'], commands), undefined);
  });

  test('command names are unique', () => {
    const names = COMMANDS.map((c) => c.name);
    assert.equal(new Set(names).size, names.length);
  });

  test('each row of the command table loads the command of its own name', async () => {
    assert.equal(COMMAND_LIST.length, COMMANDS.length);
    for (const [index, row] of COMMAND_LIST.entries()) {
      const command = await row.load();
      assert.equal(command.name, row.name);
      assert.equal(command, COMMANDS[index], row.name);
    }
  });
});

describe('flags', () => {
  const spec = { 'port-a': 'value', 'no-variant-b': 'boolean' } as const;
  test('reads values in both spellings and switches', () => {
    assert.deepEqual(parseFlags(['--port-a', '1', '--no-variant-b'], spec), { 'port-a': '1', 'no-variant-b': true });
    assert.deepEqual(parseFlags(['--port-a=2'], spec), { 'port-a': '2' });
  });
  const bad: Array<[string, string[]]> = [
    ['unknown flag', ['--port-c', '1']],
    ['positional', ['extra']],
    ['missing value', ['--port-a']],
    ['empty value', ['--port-a=']],
    ['repeated', ['--port-a', '1', '--port-a', '2']],
    ['value on a switch', ['--no-variant-b=yes']],
    ['prototype name', ['--constructor', 'x']],
  ];
  for (const [name, args] of bad) {
    test(`refuses ${name}`, () => {
      assert.throws(() => parseFlags(args, spec), { name: 'UsageError' });
    });
  }
  for (const value of ['-1', '65536', '1e3', '0x10', ' 80', '123456']) {
    test(`port ${JSON.stringify(value)} is refused`, () => {
      assert.throws(() => portFlag({ 'port-a': value }, 'port-a'), { name: 'UsageError' });
    });
  }
  test('ports 0 and 65535 are accepted', () => {
    assert.equal(portFlag({ 'port-a': '0' }, 'port-a'), 0);
    assert.equal(portFlag({ 'port-a': '65535' }, 'port-a'), 65535);
    assert.equal(portFlag({}, 'port-a'), undefined);
  });
});

describe('latch daemon (argument errors)', () => {
  for (const args of [['--bogus'], ['--port-a', '70000'], ['--no-variant-a', '--no-variant-b'], ['extra']]) {
    test(`daemon ${args.join(' ')} exits 2, with one JSON line on stderr`, async () => {
      const io = captureIo({ LATCH_HOME: home() });
      assert.equal(await runCli(['daemon', ...args], io), EXIT.usage);
      // The daemon's stderr carries only JSON lines, its usage errors too (docs/decisions.md §24.6).
      const lines = io.stderr.text.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
      assert.equal(lines.length, 1, io.stderr.text);
      assert.equal(lines[0]?.['event'], 'daemon_start_failed');
      assert.equal(lines[0]?.['code'], 'usage');
      assert.equal(lines[0]?.['exit_code'], EXIT.usage);
      assert.match(String(lines[0]?.['remedy']), /latch daemon --help/);
    });
  }
});

describe('latch token rotate', () => {
  test('replaces the token and never prints it', async () => {
    const dir = home();
    const before = ensureToken(dir);
    const io = captureIo({ LATCH_HOME: dir });
    assert.equal(await runCli(['token', 'rotate'], io), EXIT.ok);
    const after = readToken(dir);
    assert.notEqual(after, before);
    assert.equal(io.stdout.text.includes(after), false);
    assert.equal(io.stderr.text.includes(after), false);
    assert.match(io.stdout.text, /daemon_token/);
  });

  test('creates a token when there is none yet', async () => {
    const dir = path.join(home(), 'fresh');
    const io = captureIo({ LATCH_HOME: dir });
    assert.equal(await runCli(['token', 'rotate'], io), EXIT.ok);
    assert.match(readToken(dir), /^[A-Za-z0-9_-]{43}$/);
  });

  test('refuses an unsafe data directory with exit 3 and the fix', async () => {
    const dir = home();
    chmodSync(dir, 0o755);
    const io = captureIo({ LATCH_HOME: dir });
    assert.equal(await runCli(['token', 'rotate'], io), EXIT.dataDir);
    assert.ok(io.stderr.text.includes(dir));
    assert.match(io.stderr.text, /chmod 700 /);
  });

  test('refuses arguments', async () => {
    assert.equal(await runCli(['token', 'rotate', '--now'], captureIo({ LATCH_HOME: home() })), EXIT.usage);
  });
});

describe('latch audit verify', () => {
  const entry = (n: number) => ({ operation: 'sign_card_policy_window', policy_id: `pw_test${n}`, amount: '1.00', currency: 'USD' });

  test('an empty or intact log verifies', async () => {
    const dir = home();
    const empty = captureIo({ LATCH_HOME: dir });
    assert.equal(await runCli(['audit', 'verify'], empty), EXIT.ok);
    for (let n = 1; n <= 3; n++) await appendAudit(dir, entry(n));
    const io = captureIo({ LATCH_HOME: dir });
    assert.equal(await runCli(['audit', 'verify'], io), EXIT.ok);
    assert.match(io.stdout.text, /3 lines, hash chain intact/);
  });

  test('an edited line is detected (exit 6, names the line)', async () => {
    const dir = home();
    for (let n = 1; n <= 3; n++) await appendAudit(dir, entry(n));
    const file = auditLogPath(dir);
    writeFileSync(file, readFileSync(file, 'utf8').replace('pw_test1', 'pw_test9'));
    const io = captureIo({ LATCH_HOME: dir });
    assert.equal(await runCli(['audit', 'verify'], io), EXIT.verifyFailed);
    assert.match(io.stdout.text, /broken at line 2/);
  });

  test('a deleted line is detected', async () => {
    const dir = home();
    for (let n = 1; n <= 3; n++) await appendAudit(dir, entry(n));
    const file = auditLogPath(dir);
    const lines = readFileSync(file, 'utf8').split('\n');
    writeFileSync(file, [lines[0], lines[2], ''].join('\n'));
    const io = captureIo({ LATCH_HOME: dir });
    assert.equal(await runCli(['audit', 'verify'], io), EXIT.verifyFailed);
  });

  test('an appended forged line is detected', async () => {
    const dir = home();
    await appendAudit(dir, entry(1));
    appendFileSync(auditLogPath(dir), '{"seq":2,"prev":"00"}\n');
    assert.equal(await runCli(['audit', 'verify'], captureIo({ LATCH_HOME: dir })), EXIT.verifyFailed);
  });

  test('an unsafe audit.log exits 3', async () => {
    const dir = home();
    await appendAudit(dir, entry(1));
    chmodSync(auditLogPath(dir), 0o644);
    const io = captureIo({ LATCH_HOME: dir });
    assert.equal(await runCli(['audit', 'verify'], io), EXIT.dataDir);
    assert.match(io.stderr.text, /chmod 600 /);
  });
});

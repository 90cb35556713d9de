/**
 * The approval commands in-process against the approvals stub: the request shown before any
 * decision, the passphrase / [y/N] / --yes rules, --passphrase-stdin, and every error's exit code.
 * A fake terminal (a stream with isTTY and setRawMode) receives keys once the prompt is shown.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { runCli } from '../../src/cli/main.js';
import { EXIT } from '../../src/cli/exit-codes.js';
import { readApprovalPassphrase, setApprovalPassphrase, verifyApprovalPassphraseAsync } from '../../src/datadir/approval-passphrase.js';
import { ensureHome } from '../../src/datadir/home.js';
import { ensureToken } from '../../src/datadir/token.js';
import { errorBody, startStubDaemon } from '../client/stub-daemon.js';
import { readToken } from '../../src/datadir/token.js';
import { pendingApproval, startApprovalsStub, type ApprovalsStub } from './approvals-stub-daemon.js';
import { captureIo, type TextSink } from './cli-io.js';

/** FakeTerminal is standard input that claims to be a terminal and records raw mode. */
class FakeTerminal extends PassThrough {
  readonly isTTY = true;
  rawModes: boolean[] = [];
  setRawMode(raw: boolean): this {
    this.rawModes.push(raw);
    return this;
  }
}

let root: string;
let home: string;
let stub: ApprovalsStub;

beforeEach(async () => {
  root = mkdtempSync(path.join(os.tmpdir(), 'latch-approval-cmds-'));
  home = path.join(root, 'home');
  ensureHome(home);
  ensureToken(home);
  stub = await startApprovalsStub(home);
  stub.approvals.push(pendingApproval('ap_one'));
});
afterEach(async () => {
  await stub.close();
  rmSync(root, { recursive: true, force: true });
});

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * latch runs the CLI with stdin; answers are typed into the fake terminal each once its prompt
 * text has appeared on stderr (a person answers what they see).
 */
async function latch(args: string[], stdin?: PassThrough, answers: Array<[RegExp, string]> = []): Promise<Run> {
  const io = { ...captureIo({ LATCH_HOME: home, LATCH_URL: stub.url }), ...(stdin !== undefined && { stdin }) };
  const running = runCli(args, io);
  let done = false;
  void running.finally(() => (done = true));
  for (const [prompt, keys] of answers) {
    while (!done && !prompt.test((io.stderr as TextSink).text)) await sleep(5);
    stdin?.write(keys);
  }
  const code = await running;
  return { code, stdout: io.stdout.text, stderr: io.stderr.text };
}

const TERMS = ['Approval ap_one: shopper asks for exactly 80.00 USD at shop.example.com', 'Groceries (card_groceries1)', 'large-purchases', 'amount 80.00 USD is above 50.00 USD'];

describe('latch approvals', () => {
  test('a table of the pending ones with card label, amount and type, rule, expiry; --json is the list', async () => {
    stub.approvals.push({ ...pendingApproval('ap_done'), status: 'denied' });
    const human = await latch(['approvals']);
    assert.equal(human.code, EXIT.ok);
    assert.match(human.stdout, /^APPROVAL +AGENT +CARD +MERCHANT +AMOUNT +RULE +EXPIRES\n/);
    assert.match(human.stdout, /ap_one +shopper +Groceries \(card_groceries1\) +shop\.example\.com +exactly 80\.00 USD +large-purchases +2026-01-01T10:15:00Z/);
    assert.ok(!human.stdout.includes('ap_done'), 'only pending ones by default');
    const json = JSON.parse((await latch(['approvals', '--json'])).stdout);
    assert.deepEqual(json.approvals.map((a: { approval_id: string }) => a.approval_id), ['ap_one']);
    assert.match((await latch(['approvals', '--all'])).stdout, /ap_done/);
  });

  test('none waiting, and a daemon that is not there (exit 8)', async () => {
    stub.approvals.length = 0;
    assert.match((await latch(['approvals'])).stdout, /No approvals are waiting\./);
    await stub.close();
    assert.equal((await latch(['approvals'])).code, EXIT.daemonUnreachable);
  });
});

describe('latch approve', () => {
  test('with a passphrase set: shows the request, asks for the passphrase without echo, sends it', async () => {
    setApprovalPassphrase(home, 'correct horse battery');
    stub.passphrase = 'correct horse battery';
    const stdin = new FakeTerminal();
    const run = await latch(['approve', 'ap_one'], stdin, [[/Approval passphrase \(not shown\): $/, 'correct horse batteryX\u007f\r']]);
    assert.equal(run.code, EXIT.ok, run.stderr);
    for (const shown of TERMS) assert.ok(run.stdout.includes(shown), shown);
    assert.match(run.stdout, /Approved ap_one: authorization pw_one created\./);
    assert.ok(!(run.stdout + run.stderr).includes('horse'), 'the passphrase is never written');
    assert.deepEqual(stdin.rawModes, [true, false], 'raw mode on for the prompt, and restored');
    assert.deepEqual(stub.decisions, [{ approvalId: 'ap_one', action: 'approve', body: { passphrase: 'correct horse battery' } }]);
  });

  test('a wrong passphrase is 401 invalid_passphrase: exit 7, passphrase not in the output', async () => {
    setApprovalPassphrase(home, 'correct horse battery');
    stub.passphrase = 'correct horse battery';
    const run = await latch(['approve', 'ap_one'], new FakeTerminal(), [[/not shown/, 'guessed wrongly\r']]);
    assert.equal(run.code, EXIT.refused);
    assert.match(run.stderr, /\(invalid_passphrase\)/);
    assert.ok(!(run.stdout + run.stderr).includes('guessed'));
    assert.equal(stub.decisions.length, 0);
  });

  test('--passphrase-stdin reads the first line of a pipe', async () => {
    setApprovalPassphrase(home, 'correct horse battery');
    stub.passphrase = 'correct horse battery';
    const pipe = new PassThrough();
    pipe.end('correct horse battery\r\nsecond line\n');
    const run = await latch(['approve', 'ap_one', '--passphrase-stdin', '--json'], pipe);
    assert.equal(run.code, EXIT.ok, run.stderr);
    assert.equal(JSON.parse(run.stdout).status, 'approved');
    assert.ok(run.stderr.includes('Approval ap_one'), 'with --json the terms go to stderr');
  });

  test('with a passphrase set and no terminal, nothing is sent without --passphrase-stdin (exit 2)', async () => {
    setApprovalPassphrase(home, 'correct horse battery');
    const pipe = new PassThrough();
    pipe.end('correct horse battery\n');
    const run = await latch(['approve', 'ap_one'], pipe);
    assert.equal(run.code, EXIT.usage);
    assert.match(run.stderr, /not a terminal.*--passphrase-stdin/);
    assert.equal(stub.decisions.length, 0);
  });

  const confirmations: Array<[string, string, number, number]> = [
    ['y approves', 'y', EXIT.ok, 1],
    ['Y approves', 'Y', EXIT.ok, 1],
    ['n sends nothing', 'n', EXIT.ok, 0],
    ['Enter is the default, no', '\r', EXIT.ok, 0],
    ['Ctrl-C sends nothing and exits 130', '\u0003', EXIT.interrupted, 0],
  ];
  for (const [name, key, code, decisions] of confirmations) {
    test(`without a passphrase, [y/N] on the terminal: ${name}`, async () => {
      const run = await latch(['approve', 'ap_one'], new FakeTerminal(), [[/\[y\/N\] $/, key]]);
      assert.equal(run.code, code, run.stderr);
      assert.equal(stub.decisions.length, decisions);
    });
  }

  test('keys typed before the [y/N] question do not answer it', async () => {
    const stdin = new FakeTerminal();
    stdin.write('y');
    const run = await latch(['approve', 'ap_one'], stdin, [[/\[y\/N\] $/, 'n']]);
    assert.equal(run.code, EXIT.ok);
    assert.equal(stub.decisions.length, 0);
  });

  test('without a passphrase and without a terminal, --yes is required', async () => {
    const refused = await latch(['approve', 'ap_one'], new PassThrough());
    assert.equal(refused.code, EXIT.usage);
    assert.match(refused.stderr, /--yes/);
    assert.equal(stub.decisions.length, 0);
    assert.equal((await latch(['approve', 'ap_one', '--yes'])).code, EXIT.ok);
    assert.equal(stub.decisions.length, 1);
  });

  const refusals: Array<[string, () => void, string[], string, number]> = [
    ['an unknown approval', () => undefined, ['approve', 'ap_nope', '--yes'], 'approval_not_found', EXIT.refused],
    ['one already decided', () => ((stub.approvals[0] as { status: string }).status = 'expired'), ['approve', 'ap_one', '--yes'], 'approval_not_pending', EXIT.refused],
    ['a malformed id', () => undefined, ['approve', 'pw_one', '--yes'], '', EXIT.usage],
    ['no id', () => undefined, ['approve', '--yes'], '', EXIT.usage],
    ['two ids', () => undefined, ['approve', 'ap_one', 'ap_two', '--yes'], '', EXIT.usage],
  ];
  for (const [name, arrange, args, code, exit] of refusals) {
    test(`${name}: exit ${exit}${code === '' ? '' : ` (${code})`}, nothing decided`, async () => {
      arrange();
      const run = await latch(args);
      assert.equal(run.code, exit);
      if (code !== '') assert.match(run.stderr, new RegExp(`\\(${code}\\)`));
      assert.equal(stub.decisions.length, 0);
    });
  }
});

describe('latch deny', () => {
  test('shows the request and denies it with the reason, no question asked', async () => {
    const run = await latch(['deny', 'ap_one', '--reason', 'not this month']);
    assert.equal(run.code, EXIT.ok, run.stderr);
    for (const shown of TERMS) assert.ok(run.stdout.includes(shown), shown);
    assert.match(run.stdout, /Denied ap_one \(reason: not this month\)\./);
    assert.deepEqual(stub.decisions, [{ approvalId: 'ap_one', action: 'deny', body: { reason: 'not this month' } }]);
  });

  test('a second deny is approval_not_pending (exit 7)', async () => {
    assert.equal((await latch(['deny', 'ap_one'])).code, EXIT.ok);
    const again = await latch(['deny', 'ap_one', '--json']);
    assert.equal(again.code, EXIT.refused);
    assert.equal(JSON.parse(again.stdout).error.code, 'approval_not_pending');
  });
});

describe('latch approvals passphrase', () => {
  test('set on a terminal: asked twice, stored as a hash; clear removes it', async () => {
    const stdin = new FakeTerminal();
    const run = await latch(['approvals', 'passphrase', 'set'], stdin, [[/New approval passphrase/, 'a long passphrase\r'], [/Repeat it/, 'a long passphrase\r']]);
    assert.equal(run.code, EXIT.ok, run.stderr);
    assert.ok(!(run.stdout + run.stderr).includes('long passphrase'));
    assert.equal(await verifyApprovalPassphraseAsync(readApprovalPassphrase(home)!, 'a long passphrase'), true);
    assert.match((await latch(['approvals', 'passphrase', 'clear'])).stdout, /removed/);
    assert.equal(readApprovalPassphrase(home), undefined);
    assert.match((await latch(['approvals', 'passphrase', 'clear'])).stdout, /No approval passphrase was set/);
  });

  const bad: Array<[string, Array<[RegExp, string]>, RegExp]> = [
    ['entries that differ', [[/New approval/, 'a long passphrase\r'], [/Repeat it/, 'another passphrase\r']], /differ/],
    ['one too short', [[/New approval/, 'short\r']], /at least 8/],
    ['end of input', [[/New approval/, '\u0004']], /ended/],
  ];
  for (const [name, answers, message] of bad) {
    test(`set refuses ${name} and changes nothing`, async () => {
      const run = await latch(['approvals', 'passphrase', 'set'], new FakeTerminal(), answers);
      assert.notEqual(run.code, EXIT.ok);
      assert.match(run.stderr, message);
      assert.equal(readApprovalPassphrase(home), undefined);
    });
  }

  test('set without a terminal needs --passphrase-stdin, which reads one line', async () => {
    const refused = await latch(['approvals', 'passphrase', 'set'], new PassThrough());
    assert.equal(refused.code, EXIT.usage);
    const pipe = new PassThrough();
    pipe.end('piped passphrase\n');
    assert.equal((await latch(['approvals', 'passphrase', 'set', '--passphrase-stdin'], pipe)).code, EXIT.ok);
    assert.equal(await verifyApprovalPassphraseAsync(readApprovalPassphrase(home)!, 'piped passphrase'), true);
    const empty = new PassThrough();
    empty.end('');
    assert.equal((await latch(['approvals', 'passphrase', 'set', '--passphrase-stdin'], empty)).code, EXIT.usage);
  });
});

describe('latch authorize when the owner is asked', () => {
  test('prints the approval id and rule, exits 10; --json prints the pending approval', async () => {
    const daemon = await startStubDaemon();
    daemon.proofToken = () => readToken(home);
    const pending = pendingApproval('ap_new');
    daemon.script.push({ status: 202, body: pending }, { status: 202, body: pending }, { status: 403, body: errorBody('approval_denied') });
    const args = ['authorize', '--card', 'card_groceries1', '--amount', '80.00', '--merchant', 'shop.example.com'];
    const run = async (extra: string[]): Promise<Run> => {
      const io = captureIo({ LATCH_HOME: home, LATCH_URL: daemon.url });
      return { code: await runCli([...args, ...extra], io), stdout: io.stdout.text, stderr: io.stderr.text };
    };
    try {
      const human = await run([]);
      assert.equal(human.code, EXIT.pendingApproval);
      assert.match(human.stdout, /^Waiting for the owner's approval: ap_new \(rule large-purchases\)/);
      const json = await run(['--json', '--wait', '20']);
      assert.equal(json.code, EXIT.pendingApproval);
      assert.equal(JSON.parse(json.stdout).approval_id, 'ap_new');
      assert.equal(daemon.seen[1]?.headers['prefer'], 'wait=20');
      assert.equal((await run([])).code, EXIT.refused, 'a denial is a refusal');
      const io = captureIo({ LATCH_HOME: home, LATCH_URL: daemon.url });
      assert.equal(await runCli([...args, '--wait', '61'], io), EXIT.usage);
    } finally {
      await daemon.close();
    }
  });
});

/**
 * The audit chain's anchor (docs/decisions.md §20): on an enrolled device, a deleted, emptied,
 * shortened or rebuilt audit.log is refused — the daemon does not start (exit 3, naming the file),
 * nothing is signed, and `latch audit verify` fails — even when audit.head was made to match.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { EXIT } from '../../src/cli/exit-codes.js';
import { createDaemon } from '../../src/daemon/create-daemon.js';
import { readJournalAnchor } from '../../src/verify/journal-anchor.js';
import { writeHeadSync } from '../../src/datadir/audit-head.js';
import { lineHash } from '../../src/datadir/audit-lines.js';
import { DataDirError } from '../../src/datadir/data-dir-error.js';
import { REPO_ROOT } from '../support/paths.js';
import { runLatch, startStack, type Stack } from '../support/stack.js';

/** How long a daemon process may take to start or fail on a loaded machine. */
const PROCESS_DEADLINE_MS = 60_000;

let stack: Stack;
let logFile: string;
let headFile: string;
let original: { log: string; head: Buffer };

before(async () => {
  stack = await startStack();
  logFile = path.join(stack.home, 'audit.log');
  headFile = path.join(stack.home, 'audit.head');
  for (const policyId of ['pw_one', 'pw_two', 'pw_three']) assert.equal((await stack.a.post('/sign-revocation', { policy_id: policyId })).status, 200);
  // A clean stop records where the log ends; the tests below start daemons of their own.
  await stack.daemon.close({ deadlineMs: 1000 });
  original = { log: readFileSync(logFile, 'utf8'), head: readFileSync(headFile) };
});
after(() => stack.close());

function restore(): void {
  writeFileSync(logFile, original.log, { mode: 0o600 });
  writeFileSync(headFile, original.head, { mode: 0o600 });
}

/** writeChain replaces audit.log with these lines, re-chained, and audit.head to match: what a forger without state.journal writes. */
function writeChain(records: Array<Record<string, unknown>>): void {
  let prev = '0'.repeat(64);
  const lines = records.map((record, index) => {
    const { seq: _seq, prev: _prev, ...fields } = record;
    const line = JSON.stringify({ seq: index + 1, prev, ...fields });
    prev = lineHash(Buffer.from(line, 'utf8'));
    return line;
  });
  writeFileSync(logFile, lines.length === 0 ? '' : `${lines.join('\n')}\n`, { mode: 0o600 });
  rmSync(headFile, { force: true });
  if (lines.length > 0) writeHeadSync(headFile, undefined, { seq: lines.length, hash: prev });
}

function originalRecords(): Array<Record<string, unknown>> {
  return original.log
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** startProcess runs `latch daemon` and resolves with its exit code and stderr, or 'served' when it started serving. */
async function startProcess(): Promise<{ code: number | null | 'served'; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'daemon', '--port-a', '0', '--port-b', '0'], {
    cwd: REPO_ROOT,
    env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '/root', LATCH_HOME: stack.home },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const served = new Promise<'served'>((resolve) => createInterface({ input: child.stdout }).once('line', () => resolve('served')));
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`latch daemon neither served nor exited in ${PROCESS_DEADLINE_MS} ms: ${stderr}`)), PROCESS_DEADLINE_MS);
  });
  try {
    const code = await Promise.race([exited, served, deadline]);
    if (code === 'served') {
      child.kill('SIGTERM');
      await exited;
    }
    return { code, stderr };
  } finally {
    clearTimeout(timer);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
}

const spoilings: Array<[string, () => void, RegExp]> = [
  ['rm audit.log audit.head', () => (rmSync(logFile), rmSync(headFile)), /audit\.log is missing or empty, but this device is enrolled/],
  ['an empty audit.log and no audit.head', () => (writeFileSync(logFile, ''), rmSync(headFile)), /audit\.log is missing or empty, but this device is enrolled/],
  ['audit.log cut to its first line, audit.head rewritten to match', () => writeChain(originalRecords().slice(0, 1)), /audit\.log has 1 line, but state\.journal records that line \d+ was written/],
  ['audit.log rebuilt with as many lines, one changed, audit.head to match', () => writeChain(originalRecords().map((record, index, all) => (index === all.length - 1 ? { ...record, policy_id: 'pw_forged' } : record))), /line \d+ of audit\.log is not the line state\.journal records/],
];

for (const [name, spoil, reason] of spoilings) {
  test(`${name}: the daemon exits 3 naming audit.log, nothing is signed, and latch audit verify fails`, async () => {
    spoil();
    const spoiled = existsSync(logFile) ? readFileSync(logFile, 'utf8') : undefined;
    try {
      const started = await startProcess();
      assert.equal(started.code, EXIT.dataDir, `exit 3, not ${started.code}: ${started.stderr}`);
      assert.match(started.stderr, reason);
      assert.ok(started.stderr.includes(logFile), started.stderr);
      assert.match(started.stderr, /restore audit\.log and audit\.head .* from a backup/);

      const embedded = createDaemon({ home: stack.home, portA: 0, portB: 0, env: { LATCH_HOME: stack.home }, logStream: process.stderr });
      await assert.rejects(embedded.listen(), (error: unknown) => error instanceof DataDirError && error.file === logFile && reason.test(error.message));
      assert.equal(existsSync(logFile) ? readFileSync(logFile, 'utf8') : undefined, spoiled, 'nothing signed, the evidence left as it was');

      const verify = await runLatch(['audit', 'verify'], { LATCH_HOME: stack.home });
      assert.equal(verify.code, EXIT.verifyFailed, verify.stdout + verify.stderr);
      assert.match(verify.stdout + verify.stderr, reason);
    } finally {
      restore();
    }
  });
}

test('control: the intact log starts and verifies; the anchor follows the daemon’s own appends', async () => {
  restore();
  const verify = await runLatch(['audit', 'verify'], { LATCH_HOME: stack.home });
  assert.equal(verify.code, EXIT.ok, verify.stderr);
  const lines = original.log.split('\n').filter((line) => line !== '');
  assert.equal(readJournalAnchor(stack.home)?.seq, lines.length, 'the clean stop anchored the last line');
  const daemon = createDaemon({ home: stack.home, portA: 0, variantB: false, env: { LATCH_HOME: stack.home }, logStream: process.stderr });
  await daemon.listen();
  await daemon.close({ deadlineMs: 1000 });
});

test('while the daemon runs, deleting both files stops signing: no new chain is started', async () => {
  restore();
  const daemon = createDaemon({ home: stack.home, portA: 0, variantB: false, env: { LATCH_HOME: stack.home }, logStream: process.stderr });
  const ports = await daemon.listen();
  try {
    rmSync(logFile);
    rmSync(headFile);
    const token = readFileSync(path.join(stack.home, 'daemon_token'), 'utf8');
    const answer = await fetch(`http://127.0.0.1:${ports.portA}/sign-revocation`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ policy_id: 'pw_after' }),
    });
    const body = (await answer.json()) as { error?: { code?: string }; jws?: string };
    assert.equal(answer.status, 503);
    assert.equal(body.error?.code, 'data_directory_unavailable');
    assert.equal(body.jws, undefined);
    assert.equal(existsSync(logFile) ? readFileSync(logFile, 'utf8') : '', '', 'no line of a new chain');
  } finally {
    await daemon.close({ deadlineMs: 1000 });
    restore();
  }
});

test('while the daemon runs, cutting the log and rewriting audit.head to match stops signing once the anchor has passed the cut', async () => {
  restore();
  const daemon = createDaemon({ home: stack.home, portA: 0, variantB: false, env: { LATCH_HOME: stack.home }, logStream: process.stderr });
  const ports = await daemon.listen();
  const token = readFileSync(path.join(stack.home, 'daemon_token'), 'utf8');
  const signRevocation = (policyId: string) =>
    fetch(`http://127.0.0.1:${ports.portA}/sign-revocation`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ policy_id: policyId }),
    });
  try {
    assert.equal((await signRevocation('pw_four')).status, 200);
    const lines = readFileSync(logFile, 'utf8').split('\n').filter((line) => line !== '').length;
    // The anchor follows the daemon's lines within a second or so.
    const deadline = Date.now() + 30_000;
    while ((readJournalAnchor(stack.home)?.seq ?? 0) < lines) {
      assert.ok(Date.now() < deadline, `state.journal's anchor did not reach line ${lines} within 30 s`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    writeChain(originalRecords().slice(0, 2));
    const cut = readFileSync(logFile, 'utf8');
    const answer = await signRevocation('pw_five');
    const body = (await answer.json()) as { error?: { code?: string }; jws?: string };
    assert.equal(answer.status, 503);
    assert.equal(body.error?.code, 'data_directory_unavailable');
    assert.equal(body.jws, undefined);
    assert.equal(readFileSync(logFile, 'utf8'), cut, 'nothing appended to the cut log');
  } finally {
    await daemon.close({ deadlineMs: 1000 });
    restore();
  }
});

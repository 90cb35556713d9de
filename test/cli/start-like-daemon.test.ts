/**
 * `latch start` (what `npm start` runs) hosts the daemon exactly as `latch daemon` does
 * (src/cli/daemon-host.ts, docs/decisions.md §27.5): SIGUSR1 keeps the inspector closed, SIGTERM
 * with requests waiting on approvals stops within the daemon's stop deadline, and a second start on
 * the same LATCH_HOME exits 3 naming the first, not 4 "port in use".
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { after, afterEach, test } from 'node:test';
import { EXIT } from '../../src/cli/exit-codes.js';
import { DEFAULT_CLOSE_DEADLINE_MS } from '../../src/daemon/create-daemon.js';
import { addAgent, readAgentToken } from '../../src/datadir/agents.js';
import { readToken } from '../../src/datadir/token.js';
import { REPO_ROOT } from '../support/paths.js';
import { waitUntil } from '../support/wait.js';

const root = mkdtempSync(path.join(tmpdir(), 'latch-start-host-'));
chmodSync(root, 0o700);
after(() => rmSync(root, { recursive: true, force: true }));

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

/** How long a start (sandbox, account, enrollment, daemon) may take on a loaded machine. */
const START_DEADLINE_MS = 60_000;

interface Started {
  child: ChildProcess;
  stderr: () => string;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** The latch_started line, or undefined when the process exits first. */
  ready: Promise<{ port_a: number; port_b: number } | undefined>;
}

let homes = 0;
function freshHome(): string {
  return path.join(root, `home-${++homes}`);
}

function startLatch(home: string): Started {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'start', '--json', '--port-a', '0', '--port-b', '0', '--sandbox-port', '0'], {
    cwd: REPO_ROOT,
    env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '/root', LATCH_HOME: home },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const ready = new Promise<{ port_a: number; port_b: number } | undefined>((resolve) => {
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      if (line.startsWith('{') && (JSON.parse(line) as { event?: string }).event === 'latch_started') resolve(JSON.parse(line) as { port_a: number; port_b: number });
    });
    lines.once('close', () => resolve(undefined));
  });
  return { child, stderr: () => stderr, exit, ready };
}

async function within<T>(promise: Promise<T>, message: string, timeoutMs = START_DEADLINE_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${message} (after ${timeoutMs} ms)`)), timeoutMs);
  });
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

async function started(home: string): Promise<Started & { portA: number }> {
  const run = startLatch(home);
  const ready = await within(run.ready, 'latch start did not start');
  assert.ok(ready !== undefined, run.stderr());
  return { ...run, portA: ready.port_a };
}

async function health(port: number): Promise<number> {
  return (await fetch(`http://127.0.0.1:${port}/health`)).status;
}

test('latch start: SIGUSR1 leaves the inspector closed (a signal_ignored line) and the daemon serving', async () => {
  const run = await started(freshHome());
  run.child.kill('SIGUSR1');
  await waitUntil(() => run.stderr().includes('"signal_ignored"'), 'latch start logged signal_ignored for SIGUSR1');
  assert.doesNotMatch(run.stderr(), /Debugger listening/);
  assert.equal(await health(run.portA), 200);
  run.child.kill('SIGTERM');
  assert.equal((await within(run.exit, 'latch start did not stop')).code, EXIT.ok, run.stderr());
});

test('a second latch start on the same LATCH_HOME exits 3 naming the first (not 4, port in use); the first keeps serving', async () => {
  const home = freshHome();
  const first = await started(home);
  const second = startLatch(home);
  assert.equal(await within(second.ready, 'the second start neither served nor exited'), undefined);
  assert.equal((await within(second.exit, 'the second start did not exit')).code, EXIT.dataDir, second.stderr());
  assert.match(second.stderr(), new RegExp(`Another latch daemon \\(pid ${first.child.pid}, started \\S+\\) is already serving this data directory`));
  assert.equal(await health(first.portA), 200);
  first.child.kill('SIGTERM');
  assert.equal((await within(first.exit, 'latch start did not stop')).code, EXIT.ok, first.stderr());
});

test('latch start: SIGTERM with two requests waiting on approvals answers both 202 and exits within the stop deadline', async () => {
  const home = freshHome();
  const run = await started(home);
  writeFileSync(path.join(home, 'policy.json'), JSON.stringify({ v: 1, default: 'allow', rules: [{ id: 'large', min_amount: '5.00', decision: 'ask' }] }), { mode: 0o600 });
  addAgent(home, 'shopper');
  const base = `http://127.0.0.1:${run.portA}`;
  const cards = (await (await fetch(`${base}/cards`, { headers: { authorization: `Bearer ${readToken(home)}` } })).json()) as { cards: Array<{ card_id: string }> };
  const cardId = cards.cards[0]?.card_id as string;
  const ask = (i: number) =>
    fetch(`${base}/authorize`, {
      method: 'POST',
      headers: { authorization: `Bearer ${readAgentToken(home, 'shopper')}`, 'content-type': 'application/json', 'idempotency-key': `start-stop-${i}`, prefer: 'wait=60' },
      body: JSON.stringify({ card_id: cardId, amount: '6.00', merchant_name: 'big.example.com' }),
    });
  const answers = [ask(1), ask(2)];
  await waitUntil(async () => {
    const list = (await (await fetch(`${base}/approvals?status=pending_approval`, { headers: { authorization: `Bearer ${readToken(home)}` } })).json()) as { approvals: unknown[] };
    return list.approvals.length === 2;
  }, 'two approvals were pending');
  const stoppedAt = Date.now();
  run.child.kill('SIGTERM');
  const statuses = await within(Promise.all(answers.map(async (answer) => (await answer).status)), 'the waiting requests were not answered');
  assert.deepEqual(statuses, [202, 202]);
  assert.equal((await within(run.exit, 'latch start did not stop')).code, EXIT.ok, run.stderr());
  const elapsedMs = Date.now() - stoppedAt;
  assert.ok(elapsedMs < DEFAULT_CLOSE_DEADLINE_MS, `latch start took ${elapsedMs} ms to stop; latch daemon's deadline is ${DEFAULT_CLOSE_DEADLINE_MS} ms`);
});

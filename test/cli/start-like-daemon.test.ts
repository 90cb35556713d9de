/**
 * `latch start` (what `npm start` runs) hosts the daemon exactly as `latch daemon` does
 * (src/cli/daemon-host.ts, docs/decisions.md §27.5): SIGUSR1 keeps the inspector closed, SIGTERM
 * with requests waiting on approvals and a client holding a sandbox connection open stops within
 * the daemon's stop deadline, and a second start on
 * the same LATCH_HOME exits 3 naming the first, not 4 "port in use".
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { after, afterEach, test } from 'node:test';
import { EXIT } from '../../src/cli/exit-codes.js';
import { DEFAULT_CLOSE_DEADLINE_MS } from '../../src/daemon/create-daemon.js';
import { addAgent, readAgentToken } from '../../src/datadir/agents.js';
import { readLockOwner } from '../../src/datadir/daemon-lock.js';
import { readToken } from '../../src/datadir/token.js';
import { REPO_ROOT } from '../support/paths.js';
import { waitUntil } from '../support/wait.js';

const root = mkdtempSync(path.join(tmpdir(), 'latch-start-host-'));
chmodSync(root, 0o700);
after(() => rmSync(root, { recursive: true, force: true }));

const children: ChildProcess[] = [];
const trickles: net.Socket[] = [];
afterEach(() => {
  for (const socket of trickles.splice(0)) socket.destroy();
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

/** How long a start (sandbox, account, enrollment, daemon) may take on a loaded machine. */
const START_DEADLINE_MS = 60_000;

interface Started {
  child: ChildProcess;
  stderr: () => string;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** The latch_started line, or undefined when the process exits first. */
  ready: Promise<{ port_a: number; port_b: number; cloud_url: string } | undefined>;
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
  const ready = new Promise<{ port_a: number; port_b: number; cloud_url: string } | undefined>((resolve) => {
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      if (line.startsWith('{') && (JSON.parse(line) as { event?: string }).event === 'latch_started') resolve(JSON.parse(line) as { port_a: number; port_b: number; cloud_url: string });
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

async function started(home: string): Promise<Started & { portA: number; cloudUrl: string }> {
  const run = startLatch(home);
  const ready = await within(run.ready, 'latch start did not start');
  assert.ok(ready !== undefined, run.stderr());
  return { ...run, portA: ready.port_a, cloudUrl: ready.cloud_url };
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

test('latch start holds daemon.lock from before it creates its sandbox: a second start while the first is still enrolling exits 3 naming it', async () => {
  const home = freshHome();
  const first = startLatch(home);
  // The moment the first start creates its sandbox's directory, stop it there (SIGSTOP): it has
  // not enrolled or served yet, so only a lock taken before the sandbox can turn a second start away.
  await waitUntil(() => existsSync(path.join(home, 'sandbox')), 'the first start created its sandbox directory', START_DEADLINE_MS, 2);
  first.child.kill('SIGSTOP');
  try {
    assert.equal(readLockOwner(home)?.pid, first.child.pid, 'daemon.lock names the first start while it creates its sandbox');
    const second = startLatch(home);
    assert.equal(await within(second.ready, 'the second start neither served nor exited'), undefined, 'the second start must not serve a second sandbox and daemon on the same directory');
    assert.equal((await within(second.exit, 'the second start did not exit')).code, EXIT.dataDir, second.stderr());
    assert.match(second.stderr(), new RegExp(`Another latch daemon \\(pid ${first.child.pid}, started \\S+\\) is already serving this data directory`));
  } finally {
    first.child.kill('SIGCONT');
  }
  const ready = await within(first.ready, 'the first start did not finish starting');
  assert.ok(ready !== undefined, first.stderr());
  assert.equal(await health(ready.port_a), 200);
  first.child.kill('SIGTERM');
  assert.equal((await within(first.exit, 'latch start did not stop')).code, EXIT.ok, first.stderr());
  assert.equal(readLockOwner(home), undefined, 'the stopped start left no daemon.lock behind');
});

test('latch start: SIGTERM while a client trickles a request to the sandbox and two requests wait on approvals answers both 202 and exits within the stop deadline', async () => {
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
  // A connection to the sandbox cloud that never finishes its request: one header line a second.
  // The old stop closed the daemon within its deadline, then waited on this connection for ever.
  const sandboxPort = Number(new URL(run.cloudUrl).port);
  const trickle = net.connect(sandboxPort, '127.0.0.1');
  trickles.push(trickle);
  trickle.on('error', () => undefined);
  await within(new Promise<void>((resolve) => trickle.once('connect', () => resolve())), 'could not connect to the sandbox');
  trickle.write('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n');
  const dripping = setInterval(() => trickle.write('X-Trickle: 1\r\n'), 1000);
  try {
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const stoppedAt = Date.now();
    run.child.kill('SIGTERM');
    const statuses = await within(Promise.all(answers.map(async (answer) => (await answer).status)), 'the waiting requests were not answered');
    assert.deepEqual(statuses, [202, 202]);
    const stopped = await within(run.exit, 'latch start did not stop while a client trickled a request to its sandbox', DEFAULT_CLOSE_DEADLINE_MS + 10_000);
    assert.equal(stopped.code, EXIT.ok, run.stderr());
    const elapsedMs = Date.now() - stoppedAt;
    // The stop deadline covers the daemon and the sandbox together, plus the process's own exit.
    assert.ok(elapsedMs < DEFAULT_CLOSE_DEADLINE_MS + 2_000, `latch start took ${elapsedMs} ms to stop; its deadline is ${DEFAULT_CLOSE_DEADLINE_MS} ms`);
  } finally {
    clearInterval(dripping);
  }
});

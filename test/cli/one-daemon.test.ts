/**
 * One data directory, one daemon (docs/decisions.md §20): real `latch daemon` processes on one
 * LATCH_HOME. The second exits 3 naming the first; a daemon killed with -9 leaves a stale lock
 * that the next one takes over.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, test } from 'node:test';
import { EXIT } from '../../src/cli/exit-codes.js';
import { tempHome } from '../daemon/daemon-fixture.js';
import { sendRaw } from '../http/raw-client.js';
import { REPO_ROOT } from '../support/paths.js';

const cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

/** How long a daemon process may take to start or stop on a loaded machine. */
const PROCESS_DEADLINE_MS = 60_000;

interface Daemon {
  child: ChildProcess;
  stderr: () => string;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** The `daemon_listening` line, or undefined when the process exits first. */
  ready: Promise<Record<string, unknown> | undefined>;
}

function startDaemon(home: string): Daemon {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'daemon', '--port-a', '0', '--port-b', '0'], {
    cwd: REPO_ROOT,
    env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '/root', LATCH_HOME: home },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const ready = new Promise<Record<string, unknown> | undefined>((resolve) => {
    const lines = createInterface({ input: child.stdout! });
    lines.once('line', (line) => resolve(JSON.parse(line) as Record<string, unknown>));
    lines.once('close', () => resolve(undefined));
  });
  cleanups.push(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exit;
    }
  });
  return { child, stderr: () => stderr, exit, ready };
}

/** within fails with message unless promise settles in PROCESS_DEADLINE_MS. */
async function within<T>(promise: Promise<T>, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${message} (after ${PROCESS_DEADLINE_MS} ms)`)), PROCESS_DEADLINE_MS);
  });
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

function freshHome(): string {
  const dir = tempHome();
  cleanups.push(dir.remove);
  return dir.home;
}

async function healthOf(ready: Record<string, unknown> | undefined): Promise<number> {
  const port = ready?.['port_a'] as number;
  return (await sendRaw(port, { target: '/health', headers: [['Host', `127.0.0.1:${port}`]] })).status;
}

test('a second daemon on the same LATCH_HOME exits 3 naming the first; the first keeps serving; after it stops, another starts', async () => {
  const home = freshHome();
  const first = startDaemon(home);
  const firstReady = await within(first.ready, 'the first daemon did not start');
  assert.ok(firstReady !== undefined, first.stderr());
  const lock = JSON.parse(readFileSync(path.join(home, 'daemon.lock'), 'utf8')) as { pid: number };
  assert.equal(lock.pid, first.child.pid);

  const second = startDaemon(home);
  assert.equal(await within(second.ready, 'the second daemon neither served nor exited'), undefined, 'the second daemon never serves');
  assert.equal((await within(second.exit, 'the second daemon did not exit')).code, EXIT.dataDir);
  const message = second.stderr();
  assert.match(message, new RegExp(`Another latch daemon \\(pid ${first.child.pid}, started \\S+\\) is already serving this data directory`));
  assert.ok(message.includes(path.join(home, 'daemon.lock')), message);
  assert.ok(message.includes(`kill ${first.child.pid}`), message);
  assert.equal(await healthOf(firstReady), 200, 'the first daemon still serves');

  first.child.kill('SIGTERM');
  assert.equal((await within(first.exit, 'the first daemon did not stop')).code, EXIT.ok);
  assert.equal(existsSync(path.join(home, 'daemon.lock')), false, 'a clean stop removes the lock');
  const third = startDaemon(home);
  const thirdReady = await within(third.ready, 'a daemon after a clean stop did not start');
  assert.ok(thirdReady !== undefined, third.stderr());
  assert.equal(await healthOf(thirdReady), 200);
});

test('after kill -9 the lock is stale (its pid is gone) and the next daemon takes it over', async () => {
  const home = freshHome();
  const killed = startDaemon(home);
  assert.ok((await within(killed.ready, 'the daemon did not start')) !== undefined, killed.stderr());
  killed.child.kill('SIGKILL');
  assert.equal((await within(killed.exit, 'the killed daemon did not exit')).signal, 'SIGKILL');
  const stale = JSON.parse(readFileSync(path.join(home, 'daemon.lock'), 'utf8')) as { pid: number };
  assert.equal(stale.pid, killed.child.pid, 'kill -9 leaves the lock behind');

  const next = startDaemon(home);
  const ready = await within(next.ready, 'the daemon after kill -9 did not start');
  assert.ok(ready !== undefined, next.stderr());
  assert.equal(await healthOf(ready), 200);
  const taken = JSON.parse(readFileSync(path.join(home, 'daemon.lock'), 'utf8')) as { pid: number };
  assert.equal(taken.pid, next.child.pid);
});

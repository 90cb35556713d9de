import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, describe, test } from 'node:test';
import { EXIT } from '../../src/cli/exit-codes.js';
import { readToken } from '../../src/datadir/token.js';
import { tempHome } from '../daemon/daemon-fixture.js';
import { errorCode, sendRaw } from '../http/raw-client.js';
import { bundledScript } from '../support/bundled-script.js';
import { REPO_ROOT } from '../support/paths.js';

const cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

interface Spawned {
  child: ChildProcess;
  stderr: () => string;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** The first stdout line, parsed, or undefined when the process exits first. */
  firstLine: Promise<Record<string, unknown> | undefined>;
}

/** spawnLatch runs the CLI as its bundle (test/support/bundled-script.ts): a tenth of tsx's start-up CPU. */
function spawnLatch(args: string[], latchHome: string): Spawned {
  const child = spawn(process.execPath, [bundledScript('src/cli/main.ts'), ...args], {
    cwd: REPO_ROOT,
    env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '/root', LATCH_HOME: latchHome },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const firstLine = new Promise<Record<string, unknown> | undefined>((resolve) => {
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
  return { child, stderr: () => stderr, exit, firstLine };
}

function freshHome(): string {
  const dir = tempHome();
  cleanups.push(dir.remove);
  return dir.home;
}

describe('latch daemon as a process', () => {
  test('prints its ports as one JSON line, serves, and exits 0 on SIGTERM', async () => {
    const home = freshHome();
    const latch = spawnLatch(['daemon', '--port-a', '0', '--port-b', '0'], home);
    const ready = await latch.firstLine;
    assert.ok(ready !== undefined, `no ready line; stderr: ${latch.stderr()}`);
    assert.equal(ready['event'], 'daemon_listening');
    assert.equal(ready['pid'], latch.child.pid);
    const portA = ready['port_a'] as number;
    const portB = ready['port_b'] as number;
    const token = readToken(home);
    const health = await sendRaw(portA, { target: '/health', headers: [['Host', `127.0.0.1:${portA}`]] });
    assert.equal(health.status, 200);
    const healthB = await sendRaw(portB, { target: '/health', headers: [['Host', `localhost:${portB}`], ['Authorization', `Bearer ${token}`]] });
    assert.equal(healthB.status, 200);
    const evil = await sendRaw(portA, { target: '/health', headers: [['Host', 'evil.com:7723']] });
    assert.equal(errorCode(evil), 'forbidden_host');
    await sendRaw(portB, { target: `/health?token=${token}`, headers: [['Host', `127.0.0.1:${portB}`]] });
    latch.child.kill('SIGTERM');
    assert.deepEqual(await latch.exit, { code: EXIT.ok, signal: null });
    const logLines = latch
      .stderr()
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    assert.ok(logLines.some((line) => line['event'] === 'request' && line['route'] === '/health' && line['status'] === 200));
    assert.ok(logLines.some((line) => line['event'] === 'daemon_stopped'));
    assert.equal(latch.stderr().includes(token), false, 'the token never reaches the log');
  });

  test('--no-variant-b serves A only and SIGINT also stops it with 0', async () => {
    const latch = spawnLatch(['daemon', '--port-a', '0', '--no-variant-b'], freshHome());
    const ready = await latch.firstLine;
    assert.equal(ready?.['port_b'], null);
    assert.equal(typeof ready?.['port_a'], 'number');
    latch.child.kill('SIGINT');
    assert.equal((await latch.exit).code, EXIT.ok);
  });

  test('a port in use exits 4 with a clear message', async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => blocker.close(() => resolve())));
    const busy = (blocker.address() as net.AddressInfo).port;
    const latch = spawnLatch(['daemon', '--port-a', String(busy), '--port-b', '0'], freshHome());
    assert.equal(await latch.firstLine, undefined);
    assert.equal((await latch.exit).code, EXIT.portInUse);
    assert.match(latch.stderr(), new RegExp(`port ${busy} on 127\\.0\\.0\\.1 is already in use`));
  });

  const refusals: Array<[string, (home: string) => string, (file: string) => string]> = [
    ['data directory 0755', (home) => (chmodSync(home, 0o755), home), (file) => `chmod 700 ${file}`],
    ['daemon_token 0644', (home) => privateFile(home, 'daemon_token', 0o644), (file) => `chmod 600 ${file}`],
    ['device.key 0640', (home) => privateFile(home, 'device.key', 0o640), (file) => `chmod 600 ${file}`],
    ['audit.log 0606', (home) => privateFile(home, 'audit.log', 0o606), (file) => `chmod 600 ${file}`],
    // Every secret file alike: an exposed agent token is refused, not silently regenerated.
    ['agents/shopper.token 0644', (home) => agentFile(home, 'shopper.token', 0o644), (file) => `chmod 600 ${file}`],
    ['agents/shopper.json 0604', (home) => (agentFile(home, 'shopper.token', 0o600), agentFile(home, 'shopper.json', 0o604)), (file) => `chmod 600 ${file}`],
    ['agents/ 0750', (home) => { agentFile(home, 'shopper.token', 0o600); const folder = path.join(home, 'agents'); chmodSync(folder, 0o750); return folder; }, (file) => `chmod 700 ${file}`],
    ['approval_passphrase 0640', (home) => privateFile(home, 'approval_passphrase', 0o640), (file) => `chmod 600 ${file}`],
    ['device.key.next 0644', (home) => privateFile(home, 'device.key.next', 0o644), (file) => `chmod 600 ${file}`],
    ['device.key owned by uid 65534', (home) => { const file = privateFile(home, 'device.key', 0o600); chownSync(file, 65534, 65534); return file; }, () => 'chown '],
  ];
  for (const [name, spoil, fix] of refusals) {
    const needsRoot = name.includes('uid') && process.getuid?.() !== 0;
    test(`refuses to start with ${name}: exit 3, names the file and the fix`, { skip: needsRoot ? 'needs root to chown' : false }, async () => {
      const home = freshHome();
      mkdirSync(home, { mode: 0o700 });
      const file = spoil(home);
      const latch = spawnLatch(['daemon', '--port-a', '0', '--port-b', '0'], home);
      assert.equal(await latch.firstLine, undefined);
      assert.equal((await latch.exit).code, EXIT.dataDir);
      const message = latch.stderr();
      assert.ok(message.includes(file), message);
      assert.ok(message.includes(fix(file)), message);
    });
  }
});

/** agentFile writes agents/NAME (a well-formed token for a .token file) at mode. */
function agentFile(home: string, name: string, mode: number): string {
  const folder = path.join(home, 'agents');
  mkdirSync(folder, { mode: 0o700, recursive: true });
  const file = path.join(folder, name);
  writeFileSync(file, name.endsWith('.token') ? `${'A'.repeat(43)}` : '{}', { mode: 0o600 });
  chmodSync(file, mode);
  return file;
}

function privateFile(home: string, name: string, mode: number): string {
  const file = path.join(home, name);
  writeFileSync(file, '{}', { mode: 0o600 });
  chmodSync(file, mode);
  return file;
}

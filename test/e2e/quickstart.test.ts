/**
 * The quick start as a user runs it: `latch start` as a child process
 * with its own LATCH_HOME, the printed tour run command by command, sandbox.json, Ctrl-C, and a
 * second run on the same home that reuses the account.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { after, afterEach, describe, test } from 'node:test';
import { EXIT } from '../../src/cli/exit-codes.js';
import { loadConfig } from '../../src/datadir/config.js';
import { readToken } from '../../src/datadir/token.js';
import { printedCurls, runCurl } from '../support/banner-curl.js';
import { REPO_ROOT } from '../support/paths.js';

interface Started {
  child: ChildProcess;
  /** Every stdout line so far. */
  stdout: string[];
  stderr: () => string;
  ready: { port_a: number; port_b: number; cloud_url: string };
  /** The banner printed after the ready line. */
  banner: () => string;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const root = mkdtempSync(path.join(tmpdir(), 'latch-quickstart-'));
chmodSync(root, 0o700);
after(() => rmSync(root, { recursive: true, force: true }));

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

/** startLatch spawns `latch start` and resolves once it printed its latch_started line. */
function startLatch(home: string, sandboxPort: number): Promise<Started> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'start', '--port-a', '0', '--port-b', '0', '--sandbox-port', String(sandboxPort)], {
    cwd: REPO_ROOT,
    env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '/root', LATCH_HOME: home },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  const stdout: string[] = [];
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  return new Promise((resolve, reject) => {
    let readyIndex = -1;
    let ready: Started['ready'] | undefined;
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      stdout.push(line);
      if (ready !== undefined) {
        // The banner's last line: the whole tour has been printed.
        if (line.startsWith('Ctrl-C stops')) resolve({ child, stdout, stderr: () => stderr, ready, banner: () => stdout.slice(readyIndex + 1).join('\n'), exit });
        return;
      }
      if (!line.startsWith('{')) return;
      const parsed = JSON.parse(line) as Record<string, unknown>;
      if (parsed['event'] !== 'latch_started') return;
      readyIndex = stdout.length - 1;
      ready = parsed as unknown as Started['ready'];
    });
    void exit.then(({ code }) => {
      // After a resolve this does nothing; before it, the start failed.
      reject(new Error(`latch start exited ${code} before it was ready: ${stderr}\n${stdout.join('\n')}`));
    });
  });
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function portIsClosed(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });
}

async function stop(started: Started): Promise<void> {
  started.child.kill('SIGINT');
  assert.deepEqual(await started.exit, { code: EXIT.ok, signal: null }, started.stderr());
}

describe('latch start', () => {
  const home = path.join(root, 'home');
  let sandboxPort: number;
  let firstCards: string[] = [];
  let settledId = '';

  test('first run: account, enrollment through latch setup, sandbox.json, the tour works as printed, Ctrl-C stops both', async () => {
    sandboxPort = await freePort();
    const started = await startLatch(home, sandboxPort);
    const { port_a: portA, port_b: portB, cloud_url: cloudUrl } = started.ready;
    assert.equal(cloudUrl, `http://127.0.0.1:${sandboxPort}`);
    assert.ok(started.stdout.some((line) => line.startsWith('Created sandbox account ')), started.stdout.join('\n'));
    assert.ok(started.stdout.some((line) => line.startsWith('Enrolled device ')), 'enrolled by latch setup');

    const sandboxJson = JSON.parse(readFileSync(path.join(home, 'sandbox.json'), 'utf8')) as Record<string, string>;
    assert.deepEqual(Object.keys(sandboxJson).sort(), ['admin_key_path', 'cloud_url']);
    assert.equal(sandboxJson['cloud_url'], cloudUrl);
    assert.equal(sandboxJson['admin_key_path'], path.join(home, 'sandbox', 'admin_key'));
    assert.equal(statSync(sandboxJson['admin_key_path'] as string).mode & 0o777, 0o600);
    assert.equal(loadConfig(home).cloud_url, cloudUrl);

    const banner = started.banner();
    assert.match(banner, new RegExp(`http://127\\.0\\.0\\.1:${portA}`));
    assert.match(banner, new RegExp(`http://127\\.0\\.0\\.1:${portB}`));
    assert.ok(banner.includes(path.join(home, 'daemon_token')), 'says where the token is');
    const adminKey = readFileSync(sandboxJson['admin_key_path'] as string, 'utf8').trim();
    for (const secret of [readToken(home), adminKey]) {
      assert.ok(!started.stdout.join('\n').includes(secret), 'no secret is printed');
      assert.ok(!started.stderr().includes(secret), 'no secret is logged');
    }

    const commands = printedCurls(banner);
    assert.deepEqual(
      commands.map((c) => c.comment),
      [
        'health (no token needed on Variant A)',
        'list the cards',
        'authorize 12.50 at shop.example.com for 30 minutes',
        'the card network charges the card: approved, because it matches',
        'another charge, at another merchant: declined (card_frozen: the authorization is used up)',
        'the transactions',
      ],
    );
    const answers = [];
    // In order, as a user pastes them.
    for (const command of commands) answers.push(await runCurl(command));
    const [health, cards, authorize, matching, mismatched, transactions] = answers;
    assert.equal(health?.status, 200);
    assert.equal(health?.body.status, 'ok');
    assert.equal(cards?.status, 200);
    assert.equal(cards?.body.cards.length, 2);
    assert.deepEqual(cards?.body.cards.map((c: { status: string }) => c.status), ['frozen', 'frozen']);
    firstCards = cards?.body.cards.map((c: { card_id: string }) => c.card_id);
    assert.equal(authorize?.status, 200, JSON.stringify(authorize?.body));
    assert.equal(authorize?.body.amount, '12.50');
    assert.equal(authorize?.body.card_id, firstCards[0]);
    assert.equal(matching?.body.decision, 'approved', JSON.stringify(matching?.body));
    settledId = matching?.body.transaction.id;
    assert.equal(settledId, authorize?.body.transaction_id);
    assert.equal(mismatched?.body.decision, 'declined');
    assert.equal(mismatched?.body.decline_code, 'card_frozen', 'what the tour text promises');
    assert.equal(transactions?.status, 200);
    assert.deepEqual(transactions?.body.transactions.map((t: { status: string }) => t.status), ['declined', 'settled']);

    await stop(started);
    for (const port of [portA, portB, sandboxPort]) assert.ok(await portIsClosed(port), `port ${port} still open`);
  });

  test('second run on the same home: the same account and cards, nothing created again', async () => {
    assert.ok(firstCards.length === 2, 'needs the first run');
    const started = await startLatch(home, sandboxPort);
    assert.ok(!started.stdout.some((line) => line.startsWith('Created sandbox account')), started.stdout.join('\n'));
    assert.ok(!started.stdout.some((line) => line.startsWith('Enrolled device')));
    const token = readToken(home);
    const cards = await fetch(`http://127.0.0.1:${started.ready.port_a}/cards`, { headers: { authorization: `Bearer ${token}` } });
    const body = (await cards.json()) as { cards: Array<{ card_id: string; balance: string }> };
    assert.deepEqual(body.cards.map((c) => c.card_id), firstCards);
    assert.equal(body.cards[0]?.balance, '87.50', 'the settled charge is still there (journal replay)');
    const settled = await fetch(`http://127.0.0.1:${started.ready.port_a}/transactions/${settledId}`, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(((await settled.json()) as { status: string }).status, 'settled');
    await stop(started);
  });

  test('a sandbox whose journal was removed: a new account, and the device reconnects', async () => {
    assert.ok(firstCards.length === 2, 'needs the first run');
    const oldKeyId = loadConfig(home).key_id;
    rmSync(path.join(home, 'sandbox', 'journal'));
    const started = await startLatch(home, sandboxPort);
    assert.ok(started.stdout.some((line) => line.startsWith('The sandbox no longer knows device ')), started.stdout.join('\n'));
    assert.notEqual(loadConfig(home).key_id, oldKeyId, 'fresh key material');
    const cards = await fetch(`http://127.0.0.1:${started.ready.port_a}/cards`, { headers: { authorization: `Bearer ${readToken(home)}` } });
    assert.equal(cards.status, 200);
    const body = (await cards.json()) as { cards: Array<{ card_id: string; balance: string }> };
    assert.equal(body.cards.length, 2);
    assert.notDeepEqual(body.cards.map((c) => c.card_id), firstCards);
    assert.ok(started.banner().includes(body.cards[0]?.card_id ?? '?'), 'the tour names the new card');
    await stop(started);
  });

  test('another sandbox port on an enrolled home is refused with the fix', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'start', '--port-a', '0', '--port-b', '0', '--sandbox-port', '0'], {
      cwd: REPO_ROOT,
      env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '/root', LATCH_HOME: home },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', (exitCode) => resolve(exitCode)));
    assert.equal(code, EXIT.usage, stderr);
    assert.match(stderr, /--sandbox-port/);
  });

  test('the data directory stays private', () => {
    assert.equal(statSync(home).mode & 0o777, 0o700);
    for (const file of ['daemon_token', 'device.key', 'config.json', 'audit.log', 'sandbox.json']) {
      assert.ok(existsSync(path.join(home, file)), file);
      assert.equal(statSync(path.join(home, file)).mode & 0o077, 0, file);
    }
  });
});

/**
 * `latch daemon` run locked down (docs/packaging.md, "Locked-down deployment"): a small address-
 * space limit, few file descriptors, a HOME it cannot write, a read-only data directory, a crash,
 * SIGHUP. These run the CLI bundle (built once, here) as a child process, because the limits are
 * the process's own and tsx itself cannot start under `ulimit -v`. Every stderr line is JSON.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { bundleCli, bundleLibrary, REPO_ROOT } from '../../scripts/build-bundles.js';
import { killAll, runLatch, startLatch, type LatchProgram, type LatchRun, type RunningLatch } from '../../scripts/latch-process.js';
import { EXIT } from '../../src/cli/exit-codes.js';
import { readToken } from '../../src/datadir/token.js';
import { createSandbox, type Sandbox } from '../../src/sandbox/create-sandbox.js';

/** 2 GiB, in ulimit -v's KiB: below the ~10 GiB V8 reserves for a WebAssembly memory. */
const SMALL_ADDRESS_SPACE_KIB = 2 * 1024 * 1024;
const DISABLE_TRAP_HANDLER = '--disable-wasm-trap-handler';

let root: string;
let cliFile: string;
let libraryFile: string;

before(async () => {
  root = mkdtempSync(path.join(os.tmpdir(), 'latch-locked-'));
  // Readable by every user: one test runs the bundle as nobody.
  chmodSync(root, 0o755);
  cliFile = (await bundleCli(path.join(root, 'cli', 'latch.cjs'))).file;
  libraryFile = (await bundleLibrary(path.join(root, 'lib', 'index.js'))).file;
  symlinkSync(path.join(REPO_ROOT, 'node_modules'), path.join(root, 'lib', 'node_modules'), 'dir');
});
after(() => {
  killAll();
  rmSync(root, { recursive: true, force: true });
});

let homes = 0;
function freshHome(): string {
  return path.join(root, `home-${++homes}`);
}

/** The bundle under node, after `shell` (a line of ulimit settings) in a bash that then execs node. */
function limited(shell: string): LatchProgram {
  return { name: 'limited', program: 'bash', prefix: ['-c', `${shell} && exec "$0" "$@"`, process.execPath, cliFile] };
}
const plain = (): LatchProgram => limited('true');

/**
 * env is a child's whole environment. NODE_V8_COVERAGE is named empty: Node hands it to every child
 * whose env does not name it, and under c8 V8's coverage bookkeeping of the bundle took the heap of a
 * daemon under the 2 GiB limit (out of memory at 13 MB: seen in full runs only, never alone).
 */
function env(home: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: root, LATCH_HOME: home, NODE_V8_COVERAGE: '', ...extra };
}

/** jsonLines parses stderr, failing if any line is not a JSON object. */
function jsonLines(stderr: string): Array<Record<string, unknown>> {
  return stderr
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      try {
        return JSON.parse(line) as Record<string, unknown>;
      } catch {
        assert.fail(`a stderr line is not JSON: ${line}`);
      }
    });
}

function onlyError(run: LatchRun, event: string): Record<string, unknown> {
  const errors = jsonLines(run.stderr).filter((line) => line['level'] === 'error');
  assert.equal(errors.length, 1, run.stderr);
  const [line] = errors;
  assert.equal(line?.['event'], event, run.stderr);
  return line as Record<string, unknown>;
}

async function waitFor(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    assert.ok(Date.now() < deadline, `${what} did not happen within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** exited waits for the process to end on its own, so that stop()'s SIGTERM cannot be what ended it. */
function exited(daemon: RunningLatch, what: string): Promise<void> {
  return waitFor(`the daemon's exit ${what}`, () => daemon.child.exitCode !== null || daemon.child.signalCode !== null);
}

async function health(port: number, token?: string): Promise<number> {
  const headers: Record<string, string> = token === undefined ? {} : { authorization: `Bearer ${token}` };
  const response = await fetch(`http://127.0.0.1:${port}/health`, { headers, signal: AbortSignal.timeout(5_000) });
  await response.arrayBuffer();
  return response.status;
}

describe('ulimit -v below what fetch needs', () => {
  let sandbox: Sandbox;
  before(async () => {
    sandbox = await createSandbox({ dataDir: path.join(root, 'sandbox'), port: 0 });
  });
  after(() => sandbox.close());

  async function setupToken(): Promise<string> {
    const response = await fetch(`${sandbox.url}/v1/sandbox/setup-tokens`, { method: 'POST', headers: { authorization: `Bearer ${sandbox.adminKey}`, 'content-type': 'application/json' }, body: '{}' });
    assert.equal(response.status, 201);
    return ((await response.json()) as { setup_token: string }).setup_token;
  }

  test('latch daemon exits 11 before binding, with one JSON line naming the limit and the remedy', async () => {
    const run = await runLatch(limited(`ulimit -v ${SMALL_ADDRESS_SPACE_KIB}`), ['daemon', '--port-a', '0', '--port-b', '0'], { env: env(freshHome()), timeoutMs: 30_000 });
    assert.equal(run.code, EXIT.processLimits, run.stderr);
    assert.equal(run.stdout, '', 'no ready line');
    const line = onlyError(run, 'daemon_start_failed');
    assert.equal(line['code'], 'fetch_unavailable');
    assert.match(String(line['message']), new RegExp(`ulimit -v ${SMALL_ADDRESS_SPACE_KIB}`));
    assert.match(String(line['remedy']), new RegExp(DISABLE_TRAP_HANDLER));
    assert.doesNotMatch(run.stderr, /RangeError|at lazyllhttp/);
  });

  test('latch setup refuses before calling fetch: exit 11, the remedy, no stack', async () => {
    const run = await runLatch(limited(`ulimit -v ${SMALL_ADDRESS_SPACE_KIB}`), ['setup', '--token', await setupToken(), '--cloud', sandbox.url], { env: env(freshHome()), timeoutMs: 30_000 });
    assert.equal(run.code, EXIT.processLimits, run.stderr);
    assert.match(run.stderr, /fetch_unavailable/);
    assert.match(run.stderr, new RegExp(DISABLE_TRAP_HANDLER));
    assert.doesNotMatch(run.stderr, /RangeError|at lazyllhttp/);
  });

  test(`with NODE_OPTIONS=${DISABLE_TRAP_HANDLER} the same limit enrolls with the cloud and serves`, async () => {
    const home = freshHome();
    const withFlag = env(home, { NODE_OPTIONS: DISABLE_TRAP_HANDLER });
    const program = limited(`ulimit -v ${SMALL_ADDRESS_SPACE_KIB}`);
    const setup = await runLatch(program, ['setup', '--token', await setupToken(), '--cloud', sandbox.url], { env: withFlag, timeoutMs: 30_000 });
    assert.equal(setup.code, 0, setup.stderr);
    const daemon = startLatch(program, ['daemon', '--port-a', '0', '--no-variant-b'], { env: withFlag, readyTimeoutMs: 30_000 });
    try {
      const ready = await daemon.ready;
      const response = await fetch(`http://127.0.0.1:${String(ready['port_a'])}/health`, { signal: AbortSignal.timeout(5_000) });
      assert.equal(response.status, 200);
      assert.notEqual(((await response.json()) as Record<string, unknown>)['signing_key'], null, 'enrolled through fetch under the limit');
    } finally {
      assert.deepEqual(await daemon.stop(), { code: 0, signal: null }, daemon.stderr());
    }
  });

  test('an embedding host catches fetch_unavailable from listen() and lives on', async () => {
    const host = path.join(root, 'lib', 'host.mjs');
    writeFileSync(
      host,
      `import { createDaemon } from ${JSON.stringify(pathToFileURL(libraryFile).href)};
const daemon = createDaemon({ home: ${JSON.stringify(freshHome())}, portA: 0, variantB: false, env: {}, logStream: { write: () => true } });
try { await daemon.listen(); console.log('listening'); } catch (error) { console.log('caught', error.code); }
await new Promise((resolve) => setTimeout(resolve, 200));
console.log('alive');
`,
    );
    const hostProgram: LatchProgram = { name: 'host', program: 'bash', prefix: ['-c', `ulimit -v ${SMALL_ADDRESS_SPACE_KIB} && exec "$0" "$@"`, process.execPath] };
    const run = await runLatch(hostProgram, [host], { env: env(freshHome()), timeoutMs: 30_000 });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, 'caught fetch_unavailable\nalive\n', run.stderr);
  });
});

describe('ulimit -n 64', () => {
  test('the connection cap follows the limit: a flood is refused and logged, and the daemon still serves', async () => {
    const home = freshHome();
    const daemon: RunningLatch = startLatch(limited('ulimit -n 64'), ['daemon', '--port-a', '0', '--port-b', '0', '--no-console'], { env: env(home), readyTimeoutMs: 30_000 });
    const sockets: net.Socket[] = [];
    try {
      const ready = await daemon.ready;
      const [portA, portB] = [Number(ready['port_a']), Number(ready['port_b'])];
      const listening = jsonLines(daemon.stderr()).find((line) => line['event'] === 'daemon_listening');
      assert.equal(listening?.['connections_max'], 4, daemon.stderr());
      assert.ok(jsonLines(daemon.stderr()).some((line) => line['event'] === 'connections_max_lowered'));
      // 120 idle connections: beyond the descriptors the process has.
      for (let i = 0; i < 120; i++) {
        const socket = net.connect(portA, '127.0.0.1');
        socket.on('error', () => undefined);
        sockets.push(socket);
      }
      await waitFor('a connections_refused log line', () => jsonLines(daemon.stderr()).some((line) => line['event'] === 'connections_refused' && line['listener'] === 'a'));
      // Descriptors are left: the other listener answers while A is flooded.
      assert.equal(await health(portB, readToken(home)), 200);
      for (const socket of sockets) socket.destroy();
      await waitFor('A answering once the flood is gone', async () => (await health(portA).catch(() => 0)) === 200);
    } finally {
      for (const socket of sockets) socket.destroy();
      assert.deepEqual(await daemon.stop(), { code: 0, signal: null }, daemon.stderr());
    }
  });
});

describe('the data directory cannot be written', () => {
  const isRoot = process.getuid?.() === 0;

  const canSwitchUser = !isRoot || spawnSync('setpriv', ['--version']).status === 0;
  test('HOME is not writable and LATCH_HOME is unset: exit 3, one JSON line that names the path and LATCH_HOME', { skip: canSwitchUser ? false : 'as root this runs as nobody, through setpriv (util-linux)' }, async () => {
    // As nobody when this runs as root (root writes anywhere); otherwise a directory without write permission.
    // Node hands NODE_V8_COVERAGE to every child unless the child's env names it: under c8, nobody
    // could not write the coverage folder and would say so on stderr. Empty turns it off.
    const parent = path.join(root, isRoot ? 'root-owned' : 'read-only');
    mkdirSync(parent, { mode: 0o755 });
    if (!isRoot) chmodSync(parent, 0o555);
    const home = path.join(parent, 'nonexistent');
    const program: LatchProgram = isRoot ? { name: 'nobody', program: 'setpriv', prefix: ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, cliFile] } : plain();
    const run = await runLatch(program, ['daemon', '--port-a', '0', '--port-b', '0'], { env: { PATH: process.env['PATH'] ?? '', HOME: home, NODE_V8_COVERAGE: '' }, cwd: '/', timeoutMs: 30_000 });
    assert.equal(run.code, EXIT.dataDir, run.stderr);
    const line = onlyError(run, 'daemon_start_failed');
    assert.equal(line['code'], 'write_failed');
    assert.ok(String(line['file']).startsWith(home), run.stderr);
    assert.match(String(line['message']), /EACCES/);
    assert.match(String(line['remedy']), /LATCH_HOME=/);
  });

  const canMount = process.platform === 'linux' && spawnSync('unshare', ['-rm', 'true']).status === 0;
  test('a fresh data directory on a read-only mount: exit 3, one JSON line that names EROFS and the fix', { skip: canMount ? false : 'needs unshare -rm (a user namespace) for a read-only bind mount' }, async () => {
    const home = freshHome();
    mkdirSync(home, { mode: 0o700 });
    const program: LatchProgram = { name: 'read-only', program: 'unshare', prefix: ['-rm', 'sh', '-c', 'mount --bind -o ro "$0" "$0" && exec "$@"', home, process.execPath, cliFile] };
    const run = await runLatch(program, ['daemon', '--port-a', '0', '--port-b', '0'], { env: env(home), timeoutMs: 30_000 });
    assert.equal(run.code, EXIT.dataDir, run.stderr);
    const line = onlyError(run, 'daemon_start_failed');
    assert.match(String(line['message']), /EROFS/);
    assert.match(String(line['remedy']), /read-only/);
  });
});

describe('stderr is JSON lines, failures included', () => {
  test('a bad flag is a JSON line with exit 2', async () => {
    const run = await runLatch(plain(), ['daemon', '--stop-timeout', '99'], { env: env(freshHome()) });
    assert.equal(run.code, EXIT.usage);
    assert.equal(onlyError(run, 'daemon_start_failed')['code'], 'usage');
  });

  test('a crash after ready is one JSON line (no stack) and exit 1', async () => {
    // Preloaded: an exception thrown from a signal listener, which nothing in Latch catches.
    const crasher = path.join(root, 'crash-on-usr2.cjs');
    writeFileSync(crasher, "process.on('SIGUSR2', () => { throw new Error('boom from the test'); });\n");
    const daemon = startLatch(plain(), ['daemon', '--port-a', '0', '--no-variant-b'], { env: env(freshHome(), { NODE_OPTIONS: `--require ${crasher}` }) });
    await daemon.ready;
    daemon.child.kill('SIGUSR2');
    await exited(daemon, 'after SIGUSR2');
    const exit = await daemon.stop();
    assert.deepEqual(exit, { code: EXIT.failure, signal: null });
    const last = jsonLines(daemon.stderr()).at(-1);
    assert.equal(last?.['event'], 'daemon_crashed');
    assert.equal(last?.['message'], 'boom from the test');
    assert.doesNotMatch(daemon.stderr(), /\n\s+at /, 'no stack trace');
  });

  test('SIGUSR1 leaves the inspector closed; SIGHUP stops it gracefully: exit 0, with daemon_stopping (reason SIGHUP) and daemon_stopped logged', async () => {
    const daemon = startLatch(plain(), ['daemon', '--port-a', '0', '--no-variant-b'], { env: env(freshHome()) });
    const ready = await daemon.ready;
    daemon.child.kill('SIGUSR1');
    await waitFor('a signal_ignored log line', () => jsonLines(daemon.stderr()).some((line) => line['event'] === 'signal_ignored'));
    assert.doesNotMatch(daemon.stderr(), /Debugger listening/);
    assert.equal(await health(Number(ready['port_a'])), 200);
    daemon.child.kill('SIGHUP');
    await exited(daemon, 'after SIGHUP');
    assert.deepEqual(await daemon.stop(), { code: 0, signal: null }, daemon.stderr());
    const events = jsonLines(daemon.stderr());
    assert.equal(events.find((line) => line['event'] === 'daemon_stopping')?.['reason'], 'SIGHUP');
    assert.equal(events.at(-1)?.['event'], 'daemon_stopped');
  });
});

/**
 * The system under test, every part in its own process: the sandbox cloud, a device enrolled
 * through `latch setup`, and the daemon (`latch daemon`), all on loopback ephemeral ports in a
 * temporary directory that close() removes.
 */
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { send } from './load-generator.js';
import { REPO_ROOT, startServer, spawnNode, waitForExit, type ChildServer } from './child-process.js';

/** Cards get balances and daily limits far beyond what any run can spend: 100,000,000.00. */
const LARGE_AMOUNT = '100000000.00';

/**
 * One Latch under test: the source tree its daemon runs from and the data directory it uses.
 * A second Latch (`--compare`) gets a copy of the enrolled home, same device key and token but
 * its own copy of the audit log, because two daemons appending to one log would fork its chain.
 */
export interface LatchUnderTest {
  /** '' for a run of one Latch; `before` and `after` when comparing two trees. */
  label: string;
  root: string;
  home: string;
}

/**
 * The files a cloned home copies from the enrolled one. The audit log and its head are copied,
 * not shared: an enrolled device's log holds at least its enrollment, and a daemon refuses an
 * enrolled home without one (docs/decisions.md §20).
 */
const CLONED_FILES = ['daemon_token', 'device.key', 'config.json', 'audit.log', 'audit.head'];

export interface BenchStack {
  root: string;
  home: string;
  sandbox: ChildServer;
  sandboxPort: number;
  adminKey: string;
  accountId: string;
  cardIds: string[];
  /** The daemon's bearer token. */
  token: string;
  /** The Latches under test: this tree, and the tree given to --compare. */
  latches: LatchUnderTest[];
  /** startDaemon starts `latch daemon` of a Latch; env adds to the base environment. */
  startDaemon(latch: LatchUnderTest, env?: NodeJS.ProcessEnv, nodeArgs?: string[]): Promise<{ server: ChildServer; port: number; token: string }>;
  /** A path for a child's log in the run directory. */
  logFile(name: string): string;
  /** The environment every child gets. */
  env: NodeJS.ProcessEnv;
  close(): Promise<void>;
}

/** cloneHome copies an enrolled home's key, token, config and audit record (modes kept) into a new home. */
export function cloneHome(home: string, clone: string): string {
  mkdirSync(clone, { mode: 0o700 });
  for (const name of CLONED_FILES) copyFileSync(path.join(home, name), path.join(clone, name));
  return clone;
}

/** adminJson calls the sandbox's admin surface and returns the parsed answer, or throws. */
export async function adminJson(port: number, adminKey: string, method: 'GET' | 'POST', target: string, body?: unknown): Promise<any> {
  const answer = await send(false, port, {
    method,
    path: target,
    headers: { authorization: `Bearer ${adminKey}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: Buffer.from(JSON.stringify(body)) }),
  });
  if (answer.status < 200 || answer.status > 299) throw new Error(`sandbox ${method} ${target}: HTTP ${answer.status} ${answer.text.slice(0, 300)}`);
  return JSON.parse(answer.text);
}

export interface StackOptions {
  /** How many cards the account gets. */
  cards: number;
  /** Another checkout of Latch to measure beside this one (see LatchUnderTest). */
  compareRoot?: string;
  /** Node options for the sandbox process (`--cpu-prof`, ...). */
  sandboxNodeArgs?: string[];
}

/** startBenchStack starts the sandbox, creates an account with large cards, and enrolls a device. */
export async function startBenchStack(options: StackOptions): Promise<BenchStack> {
  const { cards, compareRoot } = options;
  const root = mkdtempSync(path.join(tmpdir(), 'latch-bench-'));
  chmodSync(root, 0o700);
  const home = path.join(root, 'home');
  const logs = path.join(root, 'logs');
  mkdirSync(logs, { mode: 0o700 });
  const logFile = (name: string) => path.join(logs, `${name}.log`);
  const env: NodeJS.ProcessEnv = { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? root, LATCH_HOME: home };
  const children: ChildServer[] = [];
  try {
    const sandbox = await startServer({
      entry: 'src/sandbox/main.ts',
      args: ['--port', '0', '--data-dir', path.join(root, 'sandbox')],
      env,
      stderrFile: logFile('sandbox'),
      nodeArgs: options.sandboxNodeArgs ?? [],
    });
    children.push(sandbox);
    const sandboxPort = Number(new URL(String(sandbox.ready['cloud_url'])).port);
    const adminKey = readFileSync(String(sandbox.ready['admin_key_path']), 'utf8').trim();
    const setup = await adminJson(sandboxPort, adminKey, 'POST', '/v1/sandbox/setup-tokens', {});
    const accountId = String(setup.account_id);
    const cardIds: string[] = [];
    for (let n = 1; n <= cards; n += 1) {
      const card = await adminJson(sandboxPort, adminKey, 'POST', '/v1/sandbox/cards', { account_id: accountId, label: `Bench ${n}`, balance: LARGE_AMOUNT, daily_limit: LARGE_AMOUNT });
      cardIds.push(String(card.card_id));
    }
    const enroll = spawnNode({
      entry: 'src/cli/main.ts',
      args: ['setup', '--cloud', String(sandbox.ready['cloud_url']), '--name', 'bench'],
      env: { ...env, LATCH_SETUP_TOKEN: String(setup.setup_token) },
      stderrFile: logFile('setup'),
    });
    enroll.stdout?.resume();
    const code = await waitForExit(enroll);
    if (code !== 0) throw new Error(`latch setup exited with ${code}; see ${logFile('setup')}`);
    const token = readFileSync(path.join(home, 'daemon_token'), 'utf8').trim();
    // Each row names its tree by commit: `this` is the tree bench runs from, `compared` the --compare one.
    const latches: LatchUnderTest[] = [{ label: compareRoot === undefined ? '' : `this ${commitOf(REPO_ROOT)}`, root: REPO_ROOT, home }];
    if (compareRoot !== undefined) latches.push({ label: `compared ${commitOf(compareRoot)}`, root: path.resolve(compareRoot), home: cloneHome(home, path.join(root, 'home-compared')) });
    let daemons = 0;
    return {
      latches,
      root,
      home,
      sandbox,
      sandboxPort,
      adminKey,
      accountId,
      cardIds,
      token,
      env,
      logFile,
      async startDaemon(latch, extraEnv = {}, nodeArgs = []) {
        daemons += 1;
        const server = await startServer({
          root: latch.root,
          entry: 'src/cli/main.ts',
          args: ['daemon', '--port-a', '0', '--no-variant-b'],
          env: { ...env, LATCH_HOME: latch.home, ...extraEnv },
          stderrFile: logFile(`daemon-${daemons}`),
          nodeArgs,
        });
        children.push(server);
        // Every start replaces the token, so it is read once this daemon is listening.
        return { server, port: Number(server.ready['port_a']), token: readFileSync(path.join(latch.home, 'daemon_token'), 'utf8').trim() };
      },
      async close() {
        for (const child of children.reverse()) await child.stop();
        rmSync(root, { recursive: true, force: true });
      },
    };
  } catch (error) {
    for (const child of children.reverse()) await child.stop();
    throw error;
  }
}

/** commitOf is a checkout's short commit (with `+` when its tree has changes), or `unknown` outside git. */
function commitOf(root: string): string {
  try {
    const commit = execFileSync('git', ['-C', root, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    const dirty = execFileSync('git', ['-C', root, 'status', '--porcelain', '--untracked-files=no'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim() !== '';
    return dirty ? `${commit}+` : commit;
  } catch {
    return 'unknown';
  }
}

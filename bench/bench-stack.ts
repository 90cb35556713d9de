/**
 * The system under test, every part in its own process: the sandbox cloud, a device enrolled
 * through `latch setup`, and the daemon (`latch daemon`), all on loopback ephemeral ports in a
 * temporary directory that close() removes.
 */
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { send } from './load-generator.js';
import { startServer, spawnNode, waitForExit, type ChildServer } from './child-process.js';

/** Cards get balances and daily limits far beyond what any run can spend: 100,000,000.00. */
const LARGE_AMOUNT = '100000000.00';

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
  /** startDaemon starts `latch daemon` on this home; env adds to the base environment. */
  startDaemon(env?: NodeJS.ProcessEnv, nodeArgs?: string[]): Promise<{ server: ChildServer; port: number }>;
  /** A path for a child's log in the run directory. */
  logFile(name: string): string;
  /** The environment every child gets. */
  env: NodeJS.ProcessEnv;
  close(): Promise<void>;
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

/** startBenchStack starts the sandbox, creates an account with `cards` large cards, and enrolls a device. */
export async function startBenchStack(cards: number): Promise<BenchStack> {
  const root = mkdtempSync(path.join(tmpdir(), 'latch-bench-'));
  chmodSync(root, 0o700);
  const home = path.join(root, 'home');
  const logs = path.join(root, 'logs');
  mkdirSync(logs, { mode: 0o700 });
  const logFile = (name: string) => path.join(logs, `${name}.log`);
  const env: NodeJS.ProcessEnv = { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? root, LATCH_HOME: home };
  const children: ChildServer[] = [];
  try {
    const sandbox = await startServer({ entry: 'src/sandbox/main.ts', args: ['--port', '0', '--data-dir', path.join(root, 'sandbox')], env, stderrFile: logFile('sandbox') });
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
    let daemons = 0;
    return {
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
      async startDaemon(extraEnv = {}, nodeArgs = []) {
        daemons += 1;
        const server = await startServer({
          entry: 'src/cli/main.ts',
          args: ['daemon', '--port-a', '0', '--no-variant-b'],
          env: { ...env, ...extraEnv },
          stderrFile: logFile(`daemon-${daemons}`),
          nodeArgs,
        });
        children.push(server);
        return { server, port: Number(server.ready['port_a']) };
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

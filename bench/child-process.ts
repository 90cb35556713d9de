/**
 * Servers under test run as child processes, each started the same way: `node --import tsx
 * <entry.ts>` (the runner `npm start` and the tests use), so the daemon, the sandbox and the
 * bare baseline pay the same loader costs and never share an event loop with the load generator.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { openSync, closeSync, readFileSync } from 'node:fs';
import net from 'node:net';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

/** The repository root, where the entry points and node_modules are. */
export const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The runner's arguments before the entry point. */
export const RUNNER_ARGS = ['--import', 'tsx'];

/** How long a server may take to print its ready line. */
const READY_TIMEOUT_MS = 30_000;
/** How long a server may take to exit after SIGTERM before it is killed. */
const STOP_TIMEOUT_MS = 10_000;

export interface ChildServer {
  pid: number;
  /** The JSON line the server printed once listening. */
  ready: Record<string, unknown>;
  /** rssKiB reads VmRSS from /proc/<pid>/status. */
  rssKiB(): number;
  /** stop sends SIGTERM to this process (and only it), and SIGKILL if it has not exited in time. */
  stop(): Promise<void>;
}

export interface SpawnOptions {
  /** The source tree to run from (its entry point and node_modules); default this repository. */
  root?: string;
  /** The entry point, relative to root. */
  entry: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  /** Where the child's stderr (its log) goes. */
  stderrFile: string;
  /** Extra node options before the runner's (`--cpu-prof`, ...). */
  nodeArgs?: string[];
}

/** spawnNode starts entry under the runner without waiting for anything. */
export function spawnNode(options: SpawnOptions): ChildProcess {
  const stderr = openSync(options.stderrFile, 'a');
  try {
    return spawn(process.execPath, [...(options.nodeArgs ?? []), ...RUNNER_ARGS, options.entry, ...options.args], {
      cwd: options.root ?? REPO_ROOT,
      env: options.env,
      stdio: ['ignore', 'pipe', stderr],
    });
  } finally {
    closeSync(stderr);
  }
}

/** startServer starts entry and resolves once it prints a JSON line on stdout. */
export async function startServer(options: SpawnOptions): Promise<ChildServer> {
  const child = spawnNode(options);
  const ready = await readyLine(child, options.stderrFile);
  return wrap(child, ready);
}

/** wrap gives a running child the ChildServer interface. */
export function wrap(child: ChildProcess, ready: Record<string, unknown>): ChildServer {
  const pid = child.pid as number;
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
  return {
    pid,
    ready,
    rssKiB: () => readRssKiB(pid),
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** readRssKiB returns a process's resident set size in KiB, from /proc/<pid>/status. */
export function readRssKiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = /^VmRSS:\s+(\d+)\s+kB$/m.exec(status);
  if (match === null) throw new Error(`no VmRSS for process ${pid}`);
  return Number(match[1]);
}

/** freePort asks the kernel for a free loopback port (and releases it for the caller to use). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as net.AddressInfo).port;
      server.close(() => resolve(port));
    });
  });
}

/** waitForExit resolves with the exit code of a child (null when killed by a signal). */
export function waitForExit(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

function readyLine(child: ChildProcess, stderrFile: string): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
    const fail = (why: string) => {
      clearTimeout(timer);
      lines.close();
      child.kill('SIGKILL');
      reject(new Error(`${why}; its log is in ${stderrFile}`));
    };
    const timer = setTimeout(() => fail(`server did not start within ${READY_TIMEOUT_MS} ms`), READY_TIMEOUT_MS);
    child.once('exit', (code) => fail(`server exited with code ${code} before it was ready`));
    lines.once('line', (line) => {
      clearTimeout(timer);
      child.removeAllListeners('exit');
      // Later output is drained so that a full pipe can never stall the server.
      lines.on('line', () => undefined);
      try {
        resolve(JSON.parse(line) as Record<string, unknown>);
      } catch {
        reject(new Error(`server printed ${JSON.stringify(line.slice(0, 200))} instead of a JSON ready line`));
      }
    });
  });
}

/**
 * Child processes for the crash tests: a TypeScript entry point run as its bundle (bundled once
 * per change of the sources, test/support/bundled-script.ts, so that a child starts in a tenth of
 * the CPU time tsx takes), its stdout read
 * line by line, and kill -9. Every child a test starts is registered, so an after hook can kill
 * whatever is still running even when the test failed half way.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { bundledScript } from '../support/bundled-script.js';
import { REPO_ROOT } from '../support/paths.js';

/** A running child with the lines it printed on stdout. */
export interface Child {
  process: ChildProcess;
  lines: string[];
  stderr(): string;
  /** Resolves with the exit code (null when killed by a signal) once the process has exited. */
  exited: Promise<number | null>;
}

const running = new Set<Child>();

/** startChild runs `node <script bundled> ...args` from the repository root, as `node --import tsx <script>` would. */
export function startChild(script: string, args: string[], env: NodeJS.ProcessEnv): Child {
  const child = spawn(process.execPath, [bundledScript(script), ...args], {
    cwd: REPO_ROOT,
    env: { PATH: process.env['PATH'], HOME: process.env['HOME'], ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  let partial = '';
  let errText = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    partial += chunk.toString('utf8');
    const parts = partial.split('\n');
    partial = parts.pop() ?? '';
    lines.push(...parts);
  });
  // Keep only the tail: a child logging for seconds must not grow the test's memory.
  child.stderr?.on('data', (chunk: Buffer) => (errText = (errText + chunk.toString('utf8')).slice(-20_000)));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const handle: Child = { process: child, lines, stderr: () => errText, exited };
  running.add(handle);
  void exited.then(() => running.delete(handle));
  return handle;
}

/** waitForLine resolves with the first stdout line that matches, or rejects after timeoutMs or on exit. */
export async function waitForLine(child: Child, match: (line: string) => boolean, timeoutMs: number): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  let exited = false;
  void child.exited.then(() => (exited = true));
  for (;;) {
    const found = child.lines.find(match);
    if (found !== undefined) return found;
    if (exited) throw new Error(`the child exited before printing the line; stderr: ${child.stderr().slice(-2000)}`);
    if (Date.now() > deadline) throw new Error(`no matching line within ${timeoutMs} ms; stderr: ${child.stderr().slice(-2000)}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** How long a daemon child may take to say it listens (a loaded machine starts slowly). */
export const DAEMON_STARTUP_MS = 30_000;

/**
 * startDaemonChild starts `latch daemon` on home as a child process with ephemeral ports and
 * resolves once it listens, with its Variant A port. Variant B is served unless told otherwise.
 */
export async function startDaemonChild(home: string, options: { variantB?: boolean } = {}): Promise<{ child: Child; portA: number }> {
  const child = startChild('src/cli/main.ts', ['daemon', '--port-a', '0', ...(options.variantB === false ? ['--no-variant-b'] : ['--port-b', '0'])], { LATCH_HOME: home });
  const line = await waitForLine(child, (text) => text.includes('"daemon_listening"'), DAEMON_STARTUP_MS);
  return { child, portA: (JSON.parse(line) as { port_a: number }).port_a };
}

/** killHard sends SIGKILL (kill -9) and waits until the process is gone. */
export async function killHard(child: Child): Promise<void> {
  if (child.process.exitCode === null && child.process.signalCode === null) child.process.kill('SIGKILL');
  await child.exited;
}

/** killAll kills every child still running (for after hooks). */
export async function killAll(): Promise<void> {
  await Promise.all([...running].map(killHard));
}

/**
 * Running `latch` as a child process, however it was built: the single binary, the bundled
 * JavaScript under node, or the sources under tsx. The smoke tests, the startup measurement and
 * test/build share it. Every child is tracked, so that a failing or stuck run can end them all.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { REPO_ROOT } from './build-bundles.js';

/** How to start `latch`: a program and the arguments that come before the CLI's own. */
export interface LatchProgram {
  /** A short name for reports ("binary", "bundle", "sources"). */
  name: string;
  program: string;
  prefix: string[];
}

/** The single binary at file (dist/latch by default). */
export function binaryProgram(file = path.join(REPO_ROOT, 'dist', 'latch')): LatchProgram {
  return { name: 'binary', program: file, prefix: [] };
}

/** The CommonJS bundle at file, run by this node. */
export function bundleProgram(file = path.join(REPO_ROOT, 'dist', 'latch.cjs')): LatchProgram {
  return { name: 'bundle', program: process.execPath, prefix: [file] };
}

/** The TypeScript sources, run by this node with tsx's loader (what `npm run latch` does). */
export function sourcesProgram(): LatchProgram {
  return { name: 'sources', program: process.execPath, prefix: ['--import', 'tsx', path.join(REPO_ROOT, 'src', 'cli', 'main.ts')] };
}

/** A `latch` process that keeps running (daemon, sandbox). */
export interface RunningLatch {
  child: ChildProcess;
  /** The first stdout line parsed as JSON (the ready line); rejects if the process exits or times out first. */
  ready: Promise<Record<string, unknown>>;
  stderr(): string;
  /** stop sends SIGTERM and waits for the exit, sending SIGKILL after graceMs. */
  stop(graceMs?: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** The finished run of a `latch` command. */
export interface LatchRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

const live = new Set<ChildProcess>();

/** killAll ends every child still running (for watchdogs and failure paths). */
export function killAll(): void {
  for (const child of live) child.kill('SIGKILL');
}

function spawnTracked(latch: LatchProgram, args: string[], options: { env: NodeJS.ProcessEnv; cwd?: string }): ChildProcess {
  const child = spawn(latch.program, [...latch.prefix, ...args], { env: options.env, cwd: options.cwd ?? REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  live.add(child);
  child.once('exit', () => live.delete(child));
  child.once('error', () => live.delete(child));
  return child;
}

function exitOf(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  return new Promise((resolve, reject) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve({ code: child.exitCode, signal: child.signalCode });
    child.once('exit', (code, signal) => resolve({ code, signal }));
    child.once('error', reject);
  });
}

/** startLatch starts a long-running command and reads its ready line within readyTimeoutMs. */
export function startLatch(latch: LatchProgram, args: string[], options: { env: NodeJS.ProcessEnv; cwd?: string; readyTimeoutMs?: number }): RunningLatch {
  const child = spawnTracked(latch, args, options);
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = exitOf(child);
  const timeoutMs = options.readyTimeoutMs ?? 15_000;
  const ready = new Promise<Record<string, unknown>>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`latch ${args.join(' ')}: no ready line within ${timeoutMs} ms; stderr: ${stderr}`)), timeoutMs);
    const lines = createInterface({ input: child.stdout! });
    lines.once('line', (line) => {
      clearTimeout(timer);
      try {
        resolve(JSON.parse(line) as Record<string, unknown>);
      } catch {
        reject(new Error(`latch ${args.join(' ')}: the ready line is not JSON: ${line}`));
      }
    });
    exited.then(
      ({ code, signal }) => {
        clearTimeout(timer);
        reject(new Error(`latch ${args.join(' ')} exited (${code ?? signal}) before it was ready; stderr: ${stderr}`));
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
  // A rejection nobody awaits (the caller failed elsewhere first) must not crash the runner.
  ready.catch(() => undefined);
  return {
    child,
    ready,
    stderr: () => stderr,
    async stop(graceMs = 10_000) {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      try {
        return await exited;
      } finally {
        clearTimeout(killer);
      }
    },
  };
}

/** runLatch runs a command to completion, killing it after timeoutMs. */
export async function runLatch(latch: LatchProgram, args: string[], options: { env: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number }): Promise<LatchRun> {
  const child = spawnTracked(latch, args, options);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const killer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 30_000);
  try {
    // 'close' comes after the output pipes are drained, unlike 'exit'.
    const { code, signal } = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve, reject) => {
      child.once('close', (code, signal) => resolve({ code, signal }));
      child.once('error', reject);
    });
    return { code, signal, stdout, stderr };
  } finally {
    clearTimeout(killer);
  }
}

/**
 * Size, cold start and idle memory of the daemon in its three forms, side by side (README
 * "Single binary, npm package and embedding" quotes the result):
 *
 *     npm run build:sea && tsx scripts/measure-startup.ts [--runs 10] [--idle-ms 2000]
 *
 * For each form (the single binary, the CLI bundle under node, the sources under node with tsx's
 * loader) it starts `latch daemon` --runs times, each a new process against the same enrolled data
 * directory, taking the forms in turn, and times spawn → first `GET /health` 200; after --idle-ms
 * of idleness it reads the process's resident set and its anonymous part. One untimed start per
 * form first warms the file cache, so every form is measured with its files in memory: this is
 * process cold start, not disk cold start.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { runCli } from '../src/cli/main.js';
import { adminApi, createDemoAccount } from '../src/quickstart/sandbox-account.js';
import { createSandbox } from '../src/sandbox/create-sandbox.js';
import { REPO_ROOT } from './build-bundles.js';
import { binaryProgram, bundleProgram, killAll, sourcesProgram, startLatch, type LatchProgram } from './latch-process.js';

interface Sample {
  startMs: number;
  rssBytes: number;
  anonymousBytes: number;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/**
 * memoryOf reads a process's resident set and its anonymous part (heap and other private memory)
 * from /proc (Linux). The rest of the resident set is mapped file pages, mostly node's own code,
 * whose count depends on the page cache as much as on the program.
 */
function memoryOf(pid: number): { rssBytes: number; anonymousBytes: number } {
  const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
  const kilobytes = (field: string): number => {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(rollup);
    if (match?.[1] === undefined) throw new Error(`no ${field} for ${pid}`);
    return Number(match[1]) * 1024;
  };
  return { rssBytes: kilobytes('Rss'), anonymousBytes: kilobytes('Anonymous') };
}

/** treeBytes is the apparent size of every file under dir. */
function treeBytes(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) total += statSync(path.join(entry.parentPath, entry.name)).size;
  }
  return total;
}

async function startOnce(latch: LatchProgram, env: NodeJS.ProcessEnv, idleMs: number): Promise<Sample> {
  const started = performance.now();
  const daemon = startLatch(latch, ['daemon', '--port-a', '0', '--port-b', '0'], { env });
  try {
    const ready = await daemon.ready;
    const url = `http://127.0.0.1:${String(ready['port_a'])}/health`;
    for (;;) {
      const response = await fetch(url, { signal: AbortSignal.timeout(5_000) }).catch(() => undefined);
      await response?.arrayBuffer();
      if (response?.status === 200) break;
      if (performance.now() - started > 15_000) throw new Error(`${latch.name}: no /health 200 within 15 s`);
    }
    const startMs = performance.now() - started;
    await sleep(idleMs);
    return { startMs, ...memoryOf(daemon.child.pid as number) };
  } finally {
    const stopped = await daemon.stop(5_000);
    if (stopped.code !== 0) throw new Error(`${latch.name}: daemon exited ${stopped.code ?? stopped.signal}: ${daemon.stderr()}`);
  }
}

/** enroll makes a data directory enrolled with an in-process sandbox, as a user's would be. */
async function enroll(root: string): Promise<{ home: string; close(): Promise<void> }> {
  const sandbox = await createSandbox({ dataDir: path.join(root, 'sandbox'), port: 0 });
  const account = await createDemoAccount(adminApi(sandbox.url, sandbox.adminKey));
  const home = path.join(root, 'home');
  const quiet = new PassThrough().resume();
  const code = await runCli(['setup', '--token', account.setupToken, '--cloud', sandbox.url], { stdout: quiet, stderr: quiet, env: { LATCH_HOME: home } });
  if (code !== 0) throw new Error(`latch setup exited ${code}`);
  return { home, close: () => sandbox.close() };
}

const MIB = 1024 * 1024;

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { runs: { type: 'string', default: '10' }, 'idle-ms': { type: 'string', default: '2000' } }, strict: true });
  const runs = Number(values.runs);
  const idleMs = Number(values['idle-ms']);
  const root = mkdtempSync(path.join(tmpdir(), 'latch-measure-'));
  const enrolled = await enroll(root);
  try {
    const env = { PATH: path.dirname(process.execPath), HOME: root, LATCH_HOME: enrolled.home };
    const forms = [binaryProgram(), bundleProgram(), sourcesProgram()];
    const results = new Map<string, Sample[]>(forms.map((latch) => [latch.name, []]));
    for (const latch of forms) await startOnce(latch, env, 0);
    // Round robin, so that a change in the machine's load during the run hits every form alike.
    for (let i = 0; i < runs; i += 1) {
      for (const latch of forms) results.get(latch.name)?.push(await startOnce(latch, env, idleMs));
    }
    for (const [name, samples] of results) process.stderr.write(`${name}: ${samples.map((s) => s.startMs.toFixed(0)).join(' ')} ms\n`);
    const nodeBytes = statSync(process.execPath).size;
    const sizes: Record<string, string> = {
      binary: `${(statSync(path.join(REPO_ROOT, 'dist', 'latch')).size / MIB).toFixed(1)} MiB, Node included`,
      bundle: `${(statSync(path.join(REPO_ROOT, 'dist', 'latch.cjs')).size / MIB).toFixed(2)} MiB + node (${(nodeBytes / MIB).toFixed(1)} MiB)`,
      sources: `src/ ${(treeBytes(path.join(REPO_ROOT, 'src')) / MIB).toFixed(1)} MiB + node_modules ${(treeBytes(path.join(REPO_ROOT, 'node_modules')) / MIB).toFixed(0)} MiB + node (${(nodeBytes / MIB).toFixed(1)} MiB)`,
    };
    const cell = (name: string, pick: (s: Sample) => number, unit: (v: number) => string): string => {
      const picked = (results.get(name) ?? []).map(pick);
      return `${unit(median(picked))} (${unit(Math.min(...picked))}–${unit(Math.max(...picked))})`;
    };
    const ms = (v: number): string => `${v.toFixed(0)} ms`;
    const mb = (v: number): string => `${(v / MIB).toFixed(1)} MiB`;
    const names = forms.map((f) => f.name);
    console.log(`Node ${process.version}, ${runs} runs per form, idle RSS after ${idleMs} ms; median (min–max)\n`);
    console.log(`| | ${names.join(' | ')} |`);
    console.log(`|---|${names.map(() => '---').join('|')}|`);
    console.log(`| size on disk | ${names.map((n) => sizes[n]).join(' | ')} |`);
    console.log(`| start to first /health 200 | ${names.map((n) => cell(n, (s) => s.startMs, ms)).join(' | ')} |`);
    console.log(`| idle RSS | ${names.map((n) => cell(n, (s) => s.rssBytes, mb)).join(' | ')} |`);
    console.log(`| of which anonymous | ${names.map((n) => cell(n, (s) => s.anonymousBytes, mb)).join(' | ')} |`);
  } finally {
    killAll();
    await enrolled.close();
    rmSync(root, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  killAll();
  process.exitCode = 1;
});

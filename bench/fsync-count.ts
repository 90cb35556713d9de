/**
 * Counts the fsync and fdatasync calls of one authorization at one client, per file, in the
 * daemon and in the sandbox (issue 48, docs/performance.md): a bench stack (every part in its own
 * process), a warm-up, then `strace -f -y` attached to both processes over N sequential
 * POST /authorize. Needs strace and permission to attach (ptrace_scope 0 or 1 with children).
 *
 *   npx tsx bench/fsync-count.ts [--requests 200] [--clients 1] [--sequence]
 *
 * Counts, not times: the figure is the same on a loaded machine.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { startBenchStack, type BenchStack, type LatchUnderTest } from './bench-stack.js';
import { send } from './load-generator.js';
import { windowRequest } from './requests.js';

const WARM_UP_REQUESTS = 20;
const STRACE_ATTACH_MS = 1500;
/** `--sequence` also traces the writes and prints the first requests' calls in order. */
const SEQUENCE = process.argv.includes('--sequence');
const TRACED = SEQUENCE ? 'fdatasync,fsync,write,pwrite64,writev,link,unlink,openat' : 'fdatasync,fsync';

function option(name: string): string | undefined {
  const index = process.argv.indexOf(name);
  return index === -1 ? undefined : process.argv[index + 1];
}

/** traced runs task with strace attached to pids and returns the calls seen, one line each. */
async function traced(pids: Record<string, number>, output: (name: string) => string, task: () => Promise<void>): Promise<Record<string, string[]>> {
  const tracers = Object.entries(pids).map(([name, pid]) => ({ name, child: spawn('strace', ['-f', '-y', '-qq', '-tt', '-e', `trace=${TRACED}`, '-o', output(name), '-p', String(pid)], { stdio: ['ignore', 'ignore', 'inherit'] }) }));
  await sleep(STRACE_ATTACH_MS);
  await task();
  const lines: Record<string, string[]> = {};
  for (const { name, child } of tracers) {
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGINT');
    await exited;
    const all = readFileSync(output(name), 'utf8').split('\n');
    if (SEQUENCE) console.log(`--- ${name}\n${all.filter((line) => /latch|journal|audit/.test(line)).slice(0, 60).join('\n')}`);
    lines[name] = all.filter((line) => /f(data)?sync\(/.test(line) && !line.includes('resumed>'));
  }
  return lines;
}

/** perFile groups strace lines `fdatasync(12</path/to/file>) = 0` by the file's name. */
function perFile(lines: string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const line of lines) {
    const match = /(fdatasync|fsync)\(\d+<([^>]*)>/.exec(line);
    const key = match === null ? `? ${line.slice(0, 60)}` : `${(match[2] as string).split('/').pop()} (${match[1]})`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

async function measure(stack: BenchStack, latch: LatchUnderTest, requests: number): Promise<void> {
  const daemon = await stack.startDaemon(latch);
  try {
    const card = stack.cardIds[0] as string;
    const request = windowRequest('/authorize', daemon.token, card);
    const authorize = async () => {
      const answer = await send(false, daemon.port, request);
      if (answer.status !== 200) throw new Error(`POST /authorize: HTTP ${answer.status} ${answer.text.slice(0, 200)}`);
    };
    for (let n = 0; n < WARM_UP_REQUESTS; n += 1) await authorize();
    const lines = await traced({ daemon: daemon.server.pid, sandbox: stack.sandbox.pid }, (name) => stack.logFile(`strace-${name}-${daemon.server.pid}`), async () => {
      // `--clients C`: C clients, each sending its share one after another.
      await Promise.all(Array.from({ length: clients }, async (_, client) => {
        for (let n = client; n < requests; n += clients) await authorize();
      }));
    });
    console.log(`\n${latch.label || 'this tree'}: ${requests} POST /authorize, ${clients === 1 ? 'one client, one after another' : `${clients} clients`}`);
    let total = 0;
    for (const [process, calls] of Object.entries(lines)) {
      for (const [file, count] of [...perFile(calls)].sort()) {
        total += count;
        console.log(`  ${process.padEnd(8)} ${file.padEnd(36)} ${String(count).padStart(6)}  ${(count / requests).toFixed(2)} per authorization`);
      }
    }
    console.log(`  ${'all'.padEnd(8)} ${''.padEnd(36)} ${String(total).padStart(6)}  ${(total / requests).toFixed(2)} per authorization`);
  } finally {
    await daemon.server.stop();
  }
}

const requests = Number(option('--requests') ?? 200);
const clients = Number(option('--clients') ?? 1);
const stack = await startBenchStack({ cards: 1 });
try {
  await measure(stack, stack.latches[0] as LatchUnderTest, requests);
} finally {
  await stack.close();
}

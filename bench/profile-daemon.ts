/**
 * Profiles the daemon and the sandbox under one of the benchmark's loads with `node --cpu-prof`:
 *
 *     npx tsx bench/profile-daemon.ts <sign|authorize|proxy|web-bot-auth> <output dir> [seconds] [clients]
 *
 * The .cpuprofile files land in <output dir>/daemon and <output dir>/sandbox (open them in
 * Chrome DevTools), and the heaviest functions of each by self time are printed.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { startBenchStack, type LatchUnderTest } from './bench-stack.js';
import { startServer } from './child-process.js';
import { runLoad } from './load-generator.js';
import { roundRobin, walletRequest, windowRequest } from './requests.js';
import { signRequest } from './sections/web-bot-auth.js';
import { percentile } from './stats.js';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}

async function main(): Promise<void> {
  const [load = 'sign', outDir = '/tmp/latch-profile', secondsText = '5', clientsText = '8'] = process.argv.slice(2);
  if (!['sign', 'authorize', 'proxy', 'web-bot-auth'].includes(load)) throw new Error('load must be sign, authorize, proxy or web-bot-auth');
  const daemonDir = path.resolve(outDir, 'daemon');
  const sandboxDir = path.resolve(outDir, 'sandbox');
  const stack = await startBenchStack({ cards: 4, sandboxNodeArgs: ['--cpu-prof', `--cpu-prof-dir=${sandboxDir}`] });
  const bare = await startServer({ entry: 'bench/bare-server.ts', args: ['--port', '0'], env: stack.env, stderrFile: stack.logFile('bare') });
  try {
    const cloudEnv = load === 'proxy' ? { LATCH_CLOUD_URL: `http://127.0.0.1:${String(bare.ready['port'])}` } : {};
    const daemon = await stack.startDaemon(stack.latches[0] as LatchUnderTest, cloudEnv, ['--cpu-prof', `--cpu-prof-dir=${daemonDir}`]);
    const card = roundRobin(stack.cardIds);
    const request =
      load === 'proxy'
        ? () => walletRequest(daemon.token)
        : load === 'web-bot-auth'
          ? () => signRequest(daemon.token)
          : () => windowRequest(load === 'sign' ? '/sign-card-policy-window' : '/authorize', daemon.token, card());
    const run = await runLoad({ port: daemon.port, concurrency: Number(clientsText), requestsMax: 1_000_000, durationMs: Number(secondsText) * 1000, request, expectStatus: 200 });
    process.stdout.write(
      `${run.requests} requests, ${run.errors} errors, ${((run.requests * 1000) / run.elapsedMs).toFixed(0)} req/s, p50 ${percentile(run.latenciesMs, 50).toFixed(2)} ms, p99 ${percentile(run.latenciesMs, 99).toFixed(2)} ms\n`,
    );
    await daemon.server.stop();
  } finally {
    await bare.stop();
    await stack.close();
  }
  printTop('daemon', daemonDir);
  printTop('sandbox', sandboxDir);
}

function printTop(name: string, dir: string): void {
  // The tsx loader thread writes a profile of its own; the main thread's is the largest.
  const file = readdirSync(dir)
    .filter((entry) => entry.endsWith('.cpuprofile'))
    .map((entry) => path.join(dir, entry))
    .sort((x, y) => statSync(y).size - statSync(x).size)[0];
  if (file === undefined) throw new Error(`no ${name} profile was written`);
  const profile = JSON.parse(readFileSync(file, 'utf8')) as { nodes: ProfileNode[] };
  const selfHits = new Map<string, number>();
  let total = 0;
  for (const node of profile.nodes) {
    const hits = node.hitCount ?? 0;
    total += hits;
    const where = node.callFrame.url.replace(/^.*\/(src|node_modules|bench)\//, '$1/');
    const key = `${node.callFrame.functionName || '(anonymous)'} ${where}:${node.callFrame.lineNumber + 1}`;
    selfHits.set(key, (selfHits.get(key) ?? 0) + hits);
  }
  process.stdout.write(`\n${name}: ${file}\nself time, top 20:\n`);
  for (const [key, hits] of [...selfHits].sort((x, y) => y[1] - x[1]).slice(0, 20)) {
    process.stdout.write(`${((hits * 100) / total).toFixed(1).padStart(5)}%  ${key}\n`);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});

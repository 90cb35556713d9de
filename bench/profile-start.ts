/**
 * Profiles the daemon's cold start in its bundle form (dist/latch.cjs; build it first with
 * `npm run build:js`): six starts against a freshly enrolled data directory, each timed from spawn
 * to its ready line and to the first `GET /health` 200; the last one runs under
 * `node --cpu-prof --cpu-prof-interval=100`, its profile written to <output dir>.
 *
 *     npm run build:js && npx tsx bench/profile-start.ts [output dir]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { runCli } from '../src/cli/main.js';
import { adminApi, createDemoAccount } from '../src/quickstart/sandbox-account.js';
import { createSandbox } from '../src/sandbox/create-sandbox.js';
import { bundleProgram, killAll, startLatch } from '../scripts/latch-process.js';

const STARTS = 6;
const HEALTH_DEADLINE_MS = 15_000;

async function main(): Promise<void> {
  const outDir = path.resolve(process.argv[2] ?? '/tmp/latch-start-profile');
  const root = mkdtempSync(path.join(tmpdir(), 'latch-start-profile-'));
  const sandbox = await createSandbox({ dataDir: path.join(root, 'sandbox'), port: 0 });
  try {
    const account = await createDemoAccount(adminApi(sandbox.url, sandbox.adminKey));
    const home = path.join(root, 'home');
    const quiet = new PassThrough().resume();
    const code = await runCli(['setup', '--token', account.setupToken, '--cloud', sandbox.url], { stdout: quiet, stderr: quiet, env: { LATCH_HOME: home } });
    if (code !== 0) throw new Error(`latch setup exited ${code}`);
    const env = { PATH: path.dirname(process.execPath), HOME: root, LATCH_HOME: home };
    for (let start = 1; start <= STARTS; start += 1) {
      const program = bundleProgram();
      const profiled = start === STARTS;
      const latch = profiled ? { ...program, prefix: ['--cpu-prof', '--cpu-prof-interval=100', `--cpu-prof-dir=${outDir}`, ...program.prefix] } : program;
      const started = performance.now();
      const daemon = startLatch(latch, ['daemon', '--port-a', '0', '--no-variant-b', '--no-console'], { env });
      const ready = await daemon.ready;
      const readyMs = performance.now() - started;
      const url = `http://127.0.0.1:${String(ready['port_a'])}/health`;
      for (;;) {
        const response = await fetch(url).catch(() => undefined);
        await response?.arrayBuffer();
        if (response?.status === 200) break;
        if (performance.now() - started > HEALTH_DEADLINE_MS) throw new Error(`no /health 200 within ${HEALTH_DEADLINE_MS} ms`);
      }
      process.stdout.write(`start ${start}${profiled ? ' (profiled)' : ''}: ready line ${readyMs.toFixed(1)} ms, first /health 200 ${(performance.now() - started).toFixed(1)} ms\n`);
      await daemon.stop(5_000);
    }
    process.stdout.write(`profile in ${outDir}\n`);
  } finally {
    killAll();
    await sandbox.close();
    rmSync(root, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`profile-start failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});

/**
 * Section 8, the sandbox half (`npm run bench -- --history`): a sandbox journal of `records`
 * records (bench/sandbox-history-builder.ts) and the daemon's state.journal holding its record of
 * every authorization in it (bench/state-history-builder.ts), against the same built the same way
 * from a short history of SHORT_RECORDS records, so that both sides answer full pages.
 *
 * - sandbox start (spawn of src/sandbox/main.ts to its ready line): the first start, which
 *   replays the whole journal and then writes its snapshot, once; then starts from the snapshot,
 *   alternating with the short history, median of `starts`. Goal: ≤ 10 s.
 * - daemon start with the long state.journal against the short one, alternating, median of `starts`.
 * - `GET /transactions` and `GET /authorizations` through the daemon, 1 client, p50 (median of
 *   rounds), each daemon talking to its own sandbox: a page must not cost more with history.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { cloneHome, type BenchStack } from '../bench-stack.js';
import { REPO_ROOT, startServer, type ChildServer } from '../child-process.js';
import { figure, type Figure } from '../figures.js';
import type { LoadRequest } from '../load-generator.js';
import { measureAlternating, type RunShape } from '../rounds.js';
import { buildSandboxHistory, type SandboxHistory } from '../sandbox-history-builder.js';
import { buildStateHistory } from '../state-history-builder.js';
import { median } from '../stats.js';
import { startOnce } from './history.js';
import { SNAPSHOT_FILE } from '../../src/sandbox/ledger/snapshot.js';

/** The baseline's history: enough records for full pages of both lists. */
const SHORT_RECORDS = 1_000;
/** How long the first start may take to write its snapshot before the bench gives up. */
const SNAPSHOT_WAIT_MS_MAX = 180_000;
/** The agent the bench's daemon token acts as: the owner. */
const OWNER_AGENT = 'owner';

interface Side {
  label: string;
  sandboxDir: string;
  home: string;
  history: SandboxHistory;
}

/** buildSide builds one sandbox data directory and one daemon home holding `records` of history. */
function buildSide(stack: BenchStack, label: string, records: number): Side {
  const sandboxDir = path.join(stack.root, `sandbox-${label}`);
  const history = buildSandboxHistory(path.join(stack.root, 'sandbox'), sandboxDir, records);
  const home = cloneHome(stack.home, path.join(stack.root, `home-state-${label}`));
  buildStateHistory(home, history.authorizations, OWNER_AGENT);
  return { label, sandboxDir, home, history };
}

/** startSandbox starts the sandbox on dataDir and returns it with the time from spawn to its ready line. */
async function startSandbox(stack: BenchStack, dataDir: string, label: string): Promise<{ server: ChildServer; ms: number }> {
  const spawnedMs = performance.now();
  const server = await startServer({ entry: 'src/sandbox/main.ts', args: ['--port', '0', '--data-dir', dataDir], env: stack.env, stderrFile: stack.logFile(`sandbox-${label}`) });
  return { server, ms: performance.now() - spawnedMs };
}

async function waitForFile(file: string): Promise<void> {
  const startMs = performance.now();
  while (!existsSync(file)) {
    if (performance.now() - startMs > SNAPSHOT_WAIT_MS_MAX) throw new Error(`history: no ${file} within ${SNAPSHOT_WAIT_MS_MAX} ms`);
    await sleep(100);
  }
}

function listRequest(pathname: string, token: string): () => LoadRequest {
  const request: LoadRequest = { method: 'GET', path: pathname, headers: { authorization: `Bearer ${token}` } };
  return () => request;
}

/** measureSandboxHistory builds both histories, measures them, and leaves the directories for close() to remove. */
export async function measureSandboxHistory(stack: BenchStack, options: { records: number; starts: number; shape: RunShape; progress: (text: string) => void }): Promise<Figure[]> {
  const records = options.records.toLocaleString('en-US');
  options.progress(`8: building a sandbox journal of ${records} records and the daemon's state.journal`);
  const short = buildSide(stack, 'short', SHORT_RECORDS);
  const long = buildSide(stack, 'long', options.records);
  const mb = (long.history.bytes / 1e6).toFixed(0);

  options.progress('8: sandbox start: the first (whole journal, then its snapshot), then from the snapshot');
  const first = await startSandbox(stack, long.sandboxDir, 'long-first');
  await waitForFile(path.join(long.sandboxDir, SNAPSHOT_FILE));
  await first.server.stop();
  const shortStarts: number[] = [];
  const longStarts: number[] = [];
  for (let n = 0; n < options.starts; n += 1) {
    for (const [side, times] of [[short, shortStarts], [long, longStarts]] as const) {
      const started = await startSandbox(stack, side.sandboxDir, side.label);
      times.push(started.ms);
      await started.server.stop();
    }
  }

  options.progress('8: daemon start with the long state.journal and the short one');
  const daemonShort: number[] = [];
  const daemonLong: number[] = [];
  for (let n = 0; n < options.starts; n += 1) {
    daemonShort.push(await startOnce(stack, short.home, 'state-short'));
    daemonLong.push(await startOnce(stack, long.home, 'state-long'));
  }

  options.progress('8: GET /transactions and GET /authorizations with and without history');
  const running: ChildServer[] = [];
  let lists: Record<string, { p50Ms: number }>;
  try {
    const targets: Record<string, { port: number; token: string }> = {};
    for (const side of [short, long]) {
      const sandbox = await startSandbox(stack, side.sandboxDir, `${side.label}-lists`);
      running.push(sandbox.server);
      const daemon = await stack.startDaemon({ label: side.label, root: REPO_ROOT, home: side.home }, { LATCH_CLOUD_URL: String(sandbox.server.ready['cloud_url']) });
      running.push(daemon.server);
      targets[side.label] = { port: daemon.port, token: daemon.token };
    }
    const load = (pathname: string) =>
      Object.fromEntries(Object.entries(targets).map(([label, target]) => [`${pathname} ${label}`, { port: target.port, concurrency: 1, request: listRequest(pathname, target.token), expectStatus: 200 }]));
    lists = { ...(await measureAlternating(options.shape, load('/transactions'))), ...(await measureAlternating(options.shape, load('/authorizations'))) };
  } finally {
    for (const server of running.reverse()) await server.stop();
  }
  const p50 = (key: string): number => (lists[key] as { p50Ms: number }).p50Ms;
  const authorizations = long.history.authorizations.length.toLocaleString('en-US');
  const shortName = `the same with a history of ${SHORT_RECORDS.toLocaleString('en-US')} records`;
  return [
    figure({
      section: 8,
      name: `Sandbox first start with ${records} records (whole journal)`,
      unit: 'ms',
      value: first.ms,
      baseline: median(shortStarts),
      baselineName: `sandbox start with ${SHORT_RECORDS.toLocaleString('en-US')} records`,
      note: `journal ${mb} MB, ${long.history.transactions.toLocaleString('en-US')} transactions, built in ${(long.history.buildMs / 1000).toFixed(1)} s; this start then writes the snapshot`,
    }),
    figure({
      section: 8,
      name: `Sandbox start with ${records} records, from its snapshot (median of ${options.starts})`,
      unit: 'ms',
      value: median(longStarts),
      baseline: median(shortStarts),
      baselineName: `sandbox start with ${SHORT_RECORDS.toLocaleString('en-US')} records`,
      goal: { kind: 'value_at_most', limit: 10_000 },
    }),
    figure({
      section: 8,
      name: `Daemon start with ${authorizations} authorization entries (median of ${options.starts})`,
      unit: 'ms',
      value: median(daemonLong),
      baseline: median(daemonShort),
      baselineName: shortName,
      goal: { kind: 'ratio_at_most', limit: 1.2 },
    }),
    figure({
      section: 8,
      name: `GET /transactions with ${records} records, 1 client: p50`,
      unit: 'ms',
      value: p50('/transactions long'),
      baseline: p50('/transactions short'),
      baselineName: shortName,
      goal: { kind: 'ratio_at_most', limit: 1.2 },
    }),
    figure({
      section: 8,
      name: `GET /authorizations with ${authorizations} entries, 1 client: p50`,
      unit: 'ms',
      value: p50('/authorizations long'),
      baseline: p50('/authorizations short'),
      baselineName: shortName,
      goal: { kind: 'ratio_at_most', limit: 1.2 },
    }),
  ];
}

/**
 * Section 14, `/authorize` in both layouts of each tree (issue 48, docs/decisions.md §39): every
 * tree runs its OWN sandbox, so a change to the cloud's side (its Ed25519 verification, its expiry)
 * counts, which § 2 cannot show (there both daemons share this tree's sandbox).
 *
 * - separate: the tree's `src/sandbox/main.ts` and `latch daemon` in two processes;
 * - npm start: the tree's `latch start` (the quick start: one process; this tree's has the sandbox
 *   on a worker thread).
 *
 * Every target is loaded in alternating rounds at 1 and at 64 clients (medians over rounds); then
 * the CPU per authorization: the user + system time of the target's processes (from
 * /proc/<pid>/stat) over alternating rounds at 8 clients, divided by the authorizations made.
 * Ratios compare this tree with the tree given to --compare, same layout, same run.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { adminJson } from '../bench-stack.js';
import { spawnNode, startServer, waitForExit, type ChildServer } from '../child-process.js';
import { figure, type Figure } from '../figures.js';
import { roundRobin, windowRequest } from '../requests.js';
import { measureAlternating, type RunShape, type Target } from '../rounds.js';
import { authorizeLatencyFloor, floorText, type Floor } from './floor.js';

const LARGE_AMOUNT = '100000000.00';
const CARDS = 4;

/** A tree to measure: its label (`this <commit>`, `compared <commit>`) and checkout. */
export interface LayoutTree {
  label: string;
  root: string;
}

interface Running {
  name: string;
  port: number;
  token: string;
  cardIds: string[];
  pids: number[];
  /** What each pid is, in the same order (daemon, sandbox; or the one start process). */
  roles: string[];
  servers: ChildServer[];
}

/** What the section needs from the run: a scratch directory, the env, the log files, the floor. */
export interface LayoutOptions {
  trees: LayoutTree[];
  runDir: string;
  env: NodeJS.ProcessEnv;
  logFile: (name: string) => string;
  floor: Floor;
  progress: (text: string) => void;
}

async function largeCards(port: number, adminKey: string, accountId: string): Promise<string[]> {
  const cardIds: string[] = [];
  for (let n = 1; n <= CARDS; n += 1) cardIds.push(String((await adminJson(port, adminKey, 'POST', '/v1/sandbox/cards', { account_id: accountId, label: `Bench ${n}`, balance: LARGE_AMOUNT, daily_limit: LARGE_AMOUNT })).card_id));
  return cardIds;
}

/** separateLayout starts the tree's sandbox, enrolls a device with its `latch setup`, and starts its daemon. */
async function separateLayout(tree: LayoutTree, options: LayoutOptions, slug: string): Promise<Running> {
  const home = path.join(options.runDir, `${slug}-separate-home`);
  const env = { ...options.env, LATCH_HOME: home };
  const sandbox = await startServer({ root: tree.root, entry: 'src/sandbox/main.ts', args: ['--port', '0', '--data-dir', path.join(options.runDir, `${slug}-separate-sandbox`)], env, stderrFile: options.logFile(`${slug}-separate-sandbox`) });
  const port = Number(new URL(String(sandbox.ready['cloud_url'])).port);
  const adminKey = readFileSync(String(sandbox.ready['admin_key_path']), 'utf8').trim();
  const setup = await adminJson(port, adminKey, 'POST', '/v1/sandbox/setup-tokens', {});
  const cardIds = await largeCards(port, adminKey, String(setup.account_id));
  const enroll = spawnNode({ root: tree.root, entry: 'src/cli/main.ts', args: ['setup', '--cloud', String(sandbox.ready['cloud_url']), '--name', 'bench'], env: { ...env, LATCH_SETUP_TOKEN: String(setup.setup_token) }, stderrFile: options.logFile(`${slug}-separate-setup`) });
  enroll.stdout?.resume();
  if ((await waitForExit(enroll)) !== 0) throw new Error(`${tree.label}: latch setup failed`);
  const daemon = await startServer({ root: tree.root, entry: 'src/cli/main.ts', args: ['daemon', '--port-a', '0', '--no-variant-b', '--no-console'], env, stderrFile: options.logFile(`${slug}-separate-daemon`) });
  const token = readFileSync(path.join(home, 'daemon_token'), 'utf8').trim();
  return { name: `${tree.label}, separate`, port: Number(daemon.ready['port_a']), token, cardIds, pids: [daemon.pid, sandbox.pid], roles: ['daemon', 'sandbox'], servers: [daemon, sandbox] };
}

/** startLayout runs the tree's `latch start` and gives its account large cards through the sandbox's admin key. */
async function startLayout(tree: LayoutTree, options: LayoutOptions, slug: string): Promise<Running> {
  const home = path.join(options.runDir, `${slug}-start-home`);
  const started = await startServer({ root: tree.root, entry: 'src/cli/main.ts', args: ['start', '--json', '--port-a', '0', '--port-b', '0', '--sandbox-port', '0', '--no-console'], env: { ...options.env, LATCH_HOME: home }, stderrFile: options.logFile(`${slug}-start`) });
  const note = JSON.parse(readFileSync(path.join(home, 'sandbox.json'), 'utf8')) as { cloud_url: string; admin_key_path: string };
  const config = JSON.parse(readFileSync(path.join(home, 'config.json'), 'utf8')) as { account_id: string };
  const cardIds = await largeCards(Number(new URL(note.cloud_url).port), readFileSync(note.admin_key_path, 'utf8').trim(), config.account_id);
  const token = readFileSync(path.join(home, 'daemon_token'), 'utf8').trim();
  const thread = typeof started.ready['sandbox_thread'] === 'string' ? `sandbox on a ${started.ready['sandbox_thread']} thread` : 'one thread';
  return { name: `${tree.label}, npm start (${thread})`, port: Number(started.ready['port_a']), token, cardIds, pids: [started.pid], roles: ['start'], servers: [started] };
}

function target(running: Running, clients: number): Target {
  const card = roundRobin(running.cardIds);
  return { concurrency: clients, expectStatus: 200, port: running.port, request: () => windowRequest('/authorize', running.token, card()) };
}

/** measureLayouts returns § 14's rows: per layout, this tree against the compared one. */
export async function measureLayouts(shape: RunShape, options: LayoutOptions): Promise<Figure[]> {
  const running: Running[] = [];
  const figures: Figure[] = [];
  try {
    for (const [index, tree] of options.trees.entries()) {
      options.progress(`14: starting ${tree.label}'s separate layout and its npm start`);
      running.push(await separateLayout(tree, options, `t${index}`));
      running.push(await startLayout(tree, options, `t${index}`));
    }
    const results: Record<string, Record<string, { rps: number; p50: number; p99: number }>> = {};
    for (const clients of [1, 64]) {
      options.progress(`14: /authorize at ${clients} client${clients === 1 ? '' : 's'}, ${running.length} targets alternating`);
      const measured = await measureAlternating(shape, Object.fromEntries(running.map((item) => [item.name, target(item, clients)])));
      results[clients] = Object.fromEntries(Object.entries(measured).map(([name, figures]) => [name, { rps: figures.requestsPerSecond, p50: figures.p50Ms, p99: figures.p99Ms }]));
    }
    options.progress('14: CPU per authorization, 8 clients, alternating');
    // Per target: the median over rounds of all its processes' CPU per authorization, and each process's own.
    const cpu = await measureAlternating(shape, Object.fromEntries(running.map((item) => [item.name, { ...target(item, 8), cpuPids: item.pids }])));
    const medianCpu = (name: string) => cpu[name]?.cpuMsPerRequest ?? Number.NaN;
    const cpuSplit = (item: Running) => item.roles.map((role, index) => `${role} ${(cpu[item.name]?.cpuMsPerRequestEach?.[index] ?? Number.NaN).toFixed(2)} ms`).join(', ');
    const floorMs = authorizeLatencyFloor(options.floor);
    // Rows: each layout of this tree (the first), against the same layout of the compared tree (the second), or alone.
    for (const layout of [0, 1]) {
      const mine = running[layout] as Running;
      const theirs = running[2 + layout];
      const one = results[1]?.[mine.name];
      const many = results[64]?.[mine.name];
      if (one === undefined || many === undefined) continue;
      const compared = theirs === undefined ? undefined : { one: results[1]?.[theirs.name], many: results[64]?.[theirs.name], cpu: medianCpu(theirs.name) };
      const vs = theirs === undefined ? 'this tree alone' : theirs.name;
      figures.push(figure({ section: 14, name: `${mine.name}: /authorize, 1 client, p50 against its floor`, unit: 'ms', value: one.p50, baseline: floorMs, baselineName: 'floor: 2 sign + 2 verify + 2 fdatasync + 2 round trips', goal: { kind: 'ratio_at_most', limit: 2 }, note: `${floorText(options.floor)}${compared?.one === undefined ? '' : `; ${vs}: ${compared.one.p50.toFixed(2)} ms`}` }));
      figures.push(figure({ section: 14, name: `${mine.name}: /authorize, 64 clients, req/s`, unit: 'req/s', value: many.rps, baseline: compared?.many?.rps ?? many.rps, baselineName: vs, ...(compared === undefined ? {} : { goal: { kind: 'ratio_at_least', limit: layout === 0 ? 2 : 2.5 } as const }) }));
      figures.push(figure({ section: 14, name: `${mine.name}: /authorize, 64 clients, p99`, unit: 'ms', value: many.p99, baseline: compared?.many?.p99 ?? many.p99, baselineName: vs, goal: { kind: 'value_at_most', limit: 200 } }));
      figures.push(figure({ section: 14, name: `${mine.name}: CPU per authorization (all its processes), 8 clients`, unit: 'ms', value: medianCpu(mine.name), baseline: compared?.cpu ?? medianCpu(mine.name), baselineName: vs, goal: { kind: 'value_at_most', limit: 4 }, note: `${cpuSplit(mine)}${theirs === undefined ? '' : `; ${vs}: ${cpuSplit(theirs)}`}` }));
    }
  } finally {
    for (const item of running) for (const server of item.servers) await server.stop();
  }
  return figures;
}

/**
 * Section 5, cold start and memory. The daemon (`latch daemon`, both listeners, an enrolled
 * home) and the bare server are started the same way, by `node --import tsx`, in alternation.
 * Cold start is the time from spawn() to the first `GET /health` answered 200, polled every
 * 2 ms; idle RSS is VmRSS from /proc/<pid>/status 500 ms later. Then one fresh process of each
 * serves 10,000 `POST /sign-card-policy-window` and its RSS is read again.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { performance } from 'node:perf_hooks';
import type { ChildProcess } from 'node:child_process';
import type { LatchUnderTest } from '../bench-stack.js';
import { figure, labelled, type Figure } from '../figures.js';
import { freePort, readRssKiB, spawnNode, startServer, wrap, type ChildServer, type SpawnOptions } from '../child-process.js';
import { runLoad, send } from '../load-generator.js';
import { roundRobin, windowRequest } from '../requests.js';
import { checked } from '../rounds.js';
import { median } from '../stats.js';

const POLL_INTERVAL_MS = 2;
const START_TIMEOUT_MS = 30_000;
const SETTLE_MS = 500;
const LOAD_CLIENTS = 8;
const LOAD_TIMEOUT_MS = 120_000;
const BASELINE = 'bare node:http server, same runner';

export interface ColdStartTargets {
  latches: LatchUnderTest[];
  env: NodeJS.ProcessEnv;
  cardIds: string[];
  logFile: (name: string) => string;
  /** How many starts of each (10 in a full run). */
  starts: number;
  /** How many requests before the second RSS reading (10,000 in a full run). */
  requests: number;
}

/** What is started: the bare server, or the daemon of one Latch. */
type Subject = { kind: 'bare' } | { kind: 'latch'; latch: LatchUnderTest };

interface Start {
  startMs: number;
  idleKiB: number;
}

/** spawnOptions starts subject on the given ports (0: ephemeral); the daemon serves both listeners. */
function spawnOptions(subject: Subject, targets: ColdStartTargets, port: number, portB: number): SpawnOptions {
  if (subject.kind === 'bare') return { entry: 'bench/bare-server.ts', args: ['--port', String(port)], env: targets.env, stderrFile: targets.logFile('cold-bare') };
  return {
    root: subject.latch.root,
    entry: 'src/cli/main.ts',
    args: ['daemon', '--port-a', String(port), '--port-b', String(portB)],
    env: { ...targets.env, LATCH_HOME: subject.latch.home },
    stderrFile: targets.logFile(`cold-latch-${subject.latch.label}`),
  };
}

/** untilHealthy polls GET /health on port until it answers 200, and returns when it did. */
export async function untilHealthy(port: number, child: ChildProcess): Promise<number> {
  const deadlineMs = performance.now() + START_TIMEOUT_MS;
  for (;;) {
    const answer = await send(false, port, { method: 'GET', path: '/health' });
    if (answer.status === 200) return performance.now();
    if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode} before /health answered`);
    if (performance.now() > deadlineMs) throw new Error(`/health did not answer 200 within ${START_TIMEOUT_MS} ms`);
    await sleep(POLL_INTERVAL_MS);
  }
}

async function oneStart(subject: Subject, targets: ColdStartTargets): Promise<Start> {
  // The ports are chosen beforehand, so that /health can be polled without waiting for a ready line.
  const port = await freePort();
  const options = spawnOptions(subject, targets, port, await freePort());
  const spawnedMs = performance.now();
  const child = spawnNode(options);
  child.stdout?.resume();
  const server = wrap(child, {});
  try {
    const healthyMs = await untilHealthy(port, child);
    await sleep(SETTLE_MS);
    return { startMs: healthyMs - spawnedMs, idleKiB: readRssKiB(server.pid) };
  } finally {
    await server.stop();
  }
}

async function rssAfterLoad(subject: Subject, targets: ColdStartTargets): Promise<{ idleKiB: number; loadedKiB: number }> {
  const server: ChildServer = await startServer(spawnOptions(subject, targets, 0, 0));
  try {
    const port = Number(subject.kind === 'bare' ? server.ready['port'] : server.ready['port_a']);
    await sleep(SETTLE_MS);
    const idleKiB = server.rssKiB();
    // Every daemon start replaces the token, so it is read once this one is listening; the bare server ignores it.
    const token = subject.kind === 'bare' ? 'unused' : readFileSync(path.join(subject.latch.home, 'daemon_token'), 'utf8').trim();
    const card = roundRobin(targets.cardIds);
    checked(`${subject.kind} memory load`, await runLoad({
      port,
      concurrency: LOAD_CLIENTS,
      requestsMax: targets.requests,
      durationMs: LOAD_TIMEOUT_MS,
      expectStatus: 200,
      request: () => windowRequest('/sign-card-policy-window', token, card()),
    }));
    await sleep(SETTLE_MS);
    return { idleKiB, loadedKiB: server.rssKiB() };
  } finally {
    await server.stop();
  }
}

/** measureColdStart returns the cold start, idle RSS and loaded RSS rows of section 5 for each Latch. */
export async function measureColdStart(targets: ColdStartTargets): Promise<Figure[]> {
  const subjects: Subject[] = [{ kind: 'bare' }, ...targets.latches.map((latch) => ({ kind: 'latch', latch }) as const)];
  const starts = subjects.map(() => [] as Start[]);
  for (let n = 0; n < targets.starts; n += 1) {
    for (const [index, subject] of subjects.entries()) starts[index]?.push(await oneStart(subject, targets));
  }
  const loads: Array<{ idleKiB: number; loadedKiB: number }> = [];
  for (const subject of subjects) loads.push(await rssAfterLoad(subject, targets));
  const mib = (kib: number) => kib / 1024;
  const medianOf = (index: number, pick: (start: Start) => number) => median((starts[index] ?? []).map(pick));
  const bareLoad = loads[0] as { idleKiB: number; loadedKiB: number };
  return targets.latches.flatMap((latch, latchIndex) => {
    const index = latchIndex + 1;
    const load = loads[index] as { idleKiB: number; loadedKiB: number };
    return [
      figure({
        section: 5,
        name: labelled(`Cold start to first /health 200 (median of ${targets.starts})`, latch.label),
        unit: 'ms',
        value: medianOf(index, (start) => start.startMs),
        baseline: medianOf(0, (start) => start.startMs),
        baselineName: BASELINE,
        goal: { kind: 'ratio_at_most', limit: 1.5 },
      }),
      figure({
        section: 5,
        name: labelled(`Idle RSS, ${SETTLE_MS} ms after start (median of ${targets.starts})`, latch.label),
        unit: 'MiB',
        value: mib(medianOf(index, (start) => start.idleKiB)),
        baseline: mib(medianOf(0, (start) => start.idleKiB)),
        baselineName: BASELINE,
        goal: { kind: 'ratio_at_most', limit: 1.3 },
      }),
      figure({
        section: 5,
        name: labelled(`RSS after ${targets.requests} POST /sign-card-policy-window`, latch.label),
        unit: 'MiB',
        value: mib(load.loadedKiB),
        baseline: mib(bareLoad.loadedKiB),
        baselineName: BASELINE,
        goal: { kind: 'ratio_at_most', limit: 1.3 },
        note: `one process each; idle before the load: Latch ${mib(load.idleKiB).toFixed(1)} MiB, bare ${mib(bareLoad.idleKiB).toFixed(1)} MiB`,
      }),
    ];
  });
}

/**
 * Section 5, cold start and memory, of what users run. For each form (bench/cold-forms.ts: the CLI
 * bundle under plain node, the single binary, and the sources under tsx for developers) the daemon
 * (`latch daemon`, both listeners, an enrolled home) and the bare server built the same way are
 * started in alternation. Cold start is the time from spawn() to the first `GET /health`
 * answered 200, polled every 2 ms on ports chosen beforehand; idle RSS is VmRSS from
 * /proc/<pid>/status 500 ms later. Then, for the forms users run, one fresh process of each
 * serves `POST /sign-card-policy-window` and its RSS is read again.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { performance } from 'node:perf_hooks';
import type { ChildProcess } from 'node:child_process';
import { startLatch, type LatchProgram, type RunningLatch } from '../../scripts/latch-process.js';
import type { LatchUnderTest } from '../bench-stack.js';
import { buildColdForms, type ColdForm } from '../cold-forms.js';
import { figure, labelled, type Figure } from '../figures.js';
import { freePort, readRssKiB } from '../child-process.js';
import { runLoad, send } from '../load-generator.js';
import { roundRobin, windowRequest } from '../requests.js';
import { checked } from '../rounds.js';
import { median } from '../stats.js';

const POLL_INTERVAL_MS = 2;
const START_TIMEOUT_MS = 30_000;
const SETTLE_MS = 500;
const LOAD_CLIENTS = 8;
const LOAD_TIMEOUT_MS = 120_000;
const RATIO_MAX = 1.3;
/** The start time's goal (issue 27): at most 1.5 times the bare server built the same way. */
const START_RATIO_MAX = 1.5;

/** What each form's baseline is, as the table's last column says it. */
const BASELINES: Record<ColdForm['name'], string> = {
  bundle: 'bare node:http server, esbuild bundle under node',
  binary: 'bare node:http server, single binary, same SEA build',
  sources: 'bare node:http server, node --import tsx',
};

export interface ColdStartTargets {
  latches: LatchUnderTest[];
  env: NodeJS.ProcessEnv;
  cardIds: string[];
  /** The run directory: the bundles and binaries are built under it. */
  runDir: string;
  /** How many starts of each (10 in a full run). */
  starts: number;
  /** How many requests before the second RSS reading (10,000 in a full run). */
  requests: number;
  /** Reports a step of the section (the build, a missing binary) on the runner's progress line. */
  progress: (text: string) => void;
}

/** What is started: the bare server, or the daemon of one Latch, in one form. */
type Subject = { kind: 'bare'; program: LatchProgram } | { kind: 'latch'; program: LatchProgram; latch: LatchUnderTest };

interface Start {
  startMs: number;
  idleKiB: number;
  /** The anonymous part of idleKiB: the heap and other private memory, without mapped files. */
  anonymousKiB: number;
}

/** One process's RSS before and after the load. */
interface Load {
  idleKiB: number;
  loadedKiB: number;
}

/** start starts subject on the given ports (0: ephemeral); the daemon serves both listeners. */
function start(subject: Subject, env: NodeJS.ProcessEnv, port: number, portB: number): RunningLatch {
  if (subject.kind === 'bare') return startLatch(subject.program, ['--port', String(port)], { env, readyTimeoutMs: START_TIMEOUT_MS });
  return startLatch(subject.program, ['daemon', '--port-a', String(port), '--port-b', String(portB)], {
    env: { ...env, LATCH_HOME: subject.latch.home },
    cwd: subject.latch.root,
    readyTimeoutMs: START_TIMEOUT_MS,
  });
}

/**
 * readAnonymousKiB returns a process's anonymous resident memory from /proc/<pid>/smaps_rollup.
 * The rest of VmRSS is pages of mapped files, above all node's own code (about 40 MiB of a single
 * binary), whose count depends on the page cache as much as on the program.
 */
function readAnonymousKiB(pid: number): number {
  const match = /^Anonymous:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'));
  if (match === null) throw new Error(`no Anonymous in smaps_rollup of process ${pid}`);
  return Number(match[1]);
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

async function oneStart(subject: Subject, env: NodeJS.ProcessEnv): Promise<Start> {
  // The ports are chosen beforehand, so that /health can be polled without waiting for a ready line.
  const port = await freePort();
  const portB = await freePort();
  const spawnedMs = performance.now();
  const server = start(subject, env, port, portB);
  try {
    const healthyMs = await untilHealthy(port, server.child);
    await sleep(SETTLE_MS);
    const pid = server.child.pid as number;
    return { startMs: healthyMs - spawnedMs, idleKiB: readRssKiB(pid), anonymousKiB: readAnonymousKiB(pid) };
  } catch (error) {
    throw new Error(`${subject.kind} (${subject.program.name}): ${error instanceof Error ? error.message : String(error)}; stderr: ${server.stderr().slice(-500)}`);
  } finally {
    await server.stop();
  }
}

async function rssAfterLoad(subject: Subject, targets: ColdStartTargets): Promise<Load> {
  const server = start(subject, targets.env, 0, 0);
  try {
    const ready = await server.ready;
    const port = Number(subject.kind === 'bare' ? ready['port'] : ready['port_a']);
    const pid = server.child.pid as number;
    await sleep(SETTLE_MS);
    const idleKiB = readRssKiB(pid);
    // Every daemon start replaces the token, so it is read once this one is listening; the bare server ignores it.
    const token = subject.kind === 'bare' ? 'unused' : readFileSync(path.join(subject.latch.home, 'daemon_token'), 'utf8').trim();
    const card = roundRobin(targets.cardIds);
    checked(`${subject.kind} ${subject.program.name} memory load`, await runLoad({
      port,
      concurrency: LOAD_CLIENTS,
      requestsMax: targets.requests,
      durationMs: LOAD_TIMEOUT_MS,
      expectStatus: 200,
      request: () => windowRequest('/sign-card-policy-window', token, card()),
    }));
    await sleep(SETTLE_MS);
    return { idleKiB, loadedKiB: readRssKiB(pid) };
  } finally {
    await server.stop();
  }
}

function subjectsOf(form: ColdForm, latches: readonly LatchUnderTest[]): Subject[] {
  return [{ kind: 'bare', program: form.bare }, ...latches.map((latch, index) => ({ kind: 'latch', program: form.latches[index] as LatchProgram, latch }) as const)];
}

/** measureColdStart returns the cold start, idle RSS and loaded RSS rows of section 5 for each form and Latch. */
export async function measureColdStart(targets: ColdStartTargets): Promise<Figure[]> {
  targets.progress('5: building the bundles and single binaries of the daemon and the bare server');
  const built = await buildColdForms(path.join(targets.runDir, 'cold-start'), targets.latches);
  const missing = built.binaryMissing === undefined ? undefined : `the single binary was NOT measured: its build failed (${built.binaryMissing})`;
  if (missing !== undefined) targets.progress(`5: ${missing}`);
  const runs = built.forms.map((form) => {
    const subjects = subjectsOf(form, targets.latches);
    return { form, subjects, starts: subjects.map(() => [] as Start[]) };
  });
  // Every start of every subject of every form in turn, so that the machine's load hits all alike.
  for (let n = 0; n < targets.starts; n += 1) {
    for (const run of runs) {
      for (const [index, subject] of run.subjects.entries()) run.starts[index]?.push(await oneStart(subject, targets.env));
    }
  }
  const figures: Figure[] = [];
  for (const run of runs) {
    // The sources form's memory under load says nothing about what users run, so it is not measured.
    let loads: Load[] | undefined;
    if (!run.form.developerOnly) {
      loads = [];
      for (const subject of run.subjects) loads.push(await rssAfterLoad(subject, targets));
    }
    figures.push(...formFigures(run.form, run.starts, loads, targets, missing));
  }
  return figures;
}

function formFigures(form: ColdForm, starts: Start[][], loads: Load[] | undefined, targets: ColdStartTargets, missing: string | undefined): Figure[] {
  const mib = (kib: number) => kib / 1024;
  const medianOf = (index: number, pick: (start: Start) => number) => median((starts[index] ?? []).map(pick));
  const what = form.developerOnly ? `${form.name}, developer-only` : form.name;
  const goal = form.developerOnly ? {} : { goal: { kind: 'ratio_at_most', limit: RATIO_MAX } as const };
  const note = form.name === 'bundle' && missing !== undefined ? { note: missing } : form.developerOnly ? { note: 'node --import tsx: no user runs this; no goal' } : {};
  return targets.latches.flatMap((latch, latchIndex) => {
    const index = latchIndex + 1;
    const rows = [
      figure({
        section: 5,
        name: labelled(`Cold start to first /health 200, ${what} (median of ${targets.starts})`, latch.label),
        unit: 'ms',
        value: medianOf(index, (start) => start.startMs),
        baseline: medianOf(0, (start) => start.startMs),
        baselineName: BASELINES[form.name],
        ...(form.developerOnly ? {} : { goal: { kind: 'ratio_at_most', limit: START_RATIO_MAX } as const }),
        ...note,
      }),
      figure({
        section: 5,
        name: labelled(`Idle RSS ${SETTLE_MS} ms after start, ${what} (median of ${targets.starts})`, latch.label),
        unit: 'MiB',
        value: mib(medianOf(index, (start) => start.idleKiB)),
        baseline: mib(medianOf(0, (start) => start.idleKiB)),
        baselineName: BASELINES[form.name],
        ...goal,
        note: `of which anonymous (heap and private memory, no mapped files): Latch ${mib(medianOf(index, (start) => start.anonymousKiB)).toFixed(1)} MiB, bare ${mib(medianOf(0, (start) => start.anonymousKiB)).toFixed(1)} MiB`,
      }),
    ];
    const load = loads?.[index];
    const bareLoad = loads?.[0];
    if (load === undefined || bareLoad === undefined) return rows;
    return [
      ...rows,
      figure({
        section: 5,
        name: labelled(`RSS after ${targets.requests} POST /sign-card-policy-window, ${what}`, latch.label),
        unit: 'MiB',
        value: mib(load.loadedKiB),
        baseline: mib(bareLoad.loadedKiB),
        baselineName: BASELINES[form.name],
        ...goal,
        note: `one process each; idle before the load: Latch ${mib(load.idleKiB).toFixed(1)} MiB, bare ${mib(bareLoad.idleKiB).toFixed(1)} MiB`,
      }),
    ];
  });
}

/**
 * Rounds: every compared pair is measured in alternating rounds (baseline, Latch, then Latch,
 * baseline, ...) after a warm-up of each, and each figure is the median over rounds, so that a
 * burst of noise from the shared machine lands on one round of one side, not on a whole figure.
 */
import { runLoad, type LoadOptions, type LoadRun } from './load-generator.js';
import { cpuMs } from './process-cpu.js';
import { median, summarize, type LoadFigures } from './stats.js';

/** The shape of a benchmark run: shorter with --quick, for trying the harness out. */
export interface RunShape {
  rounds: number;
  roundMs: number;
  warmupMs: number;
}

export const FULL_SHAPE: RunShape = { rounds: 4, roundMs: 2_000, warmupMs: 500 };
export const QUICK_SHAPE: RunShape = { rounds: 1, roundMs: 500, warmupMs: 200 };

/** The most requests one round may send, whatever its duration. */
export const ROUND_REQUESTS_MAX = 200_000;

export type Target = Omit<LoadOptions, 'durationMs' | 'requestsMax'> & {
  /** The processes serving the target: their CPU time per request is measured in every round. */
  cpuPids?: readonly number[];
};

/**
 * A target's medians, with, when the target names its processes, their CPU per request: all of
 * them together (the median of the rounds' totals) and each one's own median.
 */
export type MeasuredFigures = LoadFigures & { cpuMsPerRequest?: number; cpuMsPerRequestEach?: number[] };

/**
 * measureAlternating warms every target up, then runs shape.rounds rounds of each in turn and
 * returns each target's medians. A round with errors fails the whole measurement with the
 * first error, because a figure built on failed requests would be fast and meaningless.
 */
export async function measureAlternating(shape: RunShape, targets: Record<string, Target>): Promise<Record<string, MeasuredFigures>> {
  const names = Object.keys(targets);
  for (const name of names) checked(name, await runLoad({ ...(targets[name] as Target), durationMs: shape.warmupMs, requestsMax: ROUND_REQUESTS_MAX }));
  const rounds: Record<string, LoadRun[]> = Object.fromEntries(names.map((name) => [name, []]));
  // Per round and process: CPU ms per request.
  const cpu: Record<string, number[][]> = Object.fromEntries(names.map((name) => [name, []]));
  for (let round = 0; round < shape.rounds; round += 1) {
    // The order turns around every round (A B, B A, A B, ...): whichever target runs first in a
    // round was measured worse on this machine, by up to 30% (docs/performance.md, issue 48's
    // audit part), so a fixed order would hand that penalty to the same tree every round.
    for (const name of round % 2 === 0 ? names : [...names].reverse()) {
      const target = targets[name] as Target;
      const pids = target.cpuPids ?? [];
      const before = cpuMs(pids);
      const run = checked(name, await runLoad({ ...target, durationMs: shape.roundMs, requestsMax: ROUND_REQUESTS_MAX }));
      if (pids.length > 0) cpu[name]?.push(cpuMs(pids).map((after, index) => (after - (before[index] as number)) / run.requests));
      rounds[name]?.push(run);
    }
  }
  return Object.fromEntries(
    names.map((name) => {
      const perRound = cpu[name] ?? [];
      const figures = summarize(rounds[name] ?? []);
      if (perRound.length === 0) return [name, figures];
      const each = (perRound[0] ?? []).map((_, index) => median(perRound.map((perProcess) => perProcess[index] as number)));
      return [name, { ...figures, cpuMsPerRequest: median(perRound.map((perProcess) => perProcess.reduce((sum, value) => sum + value, 0))), cpuMsPerRequestEach: each }];
    }),
  );
}

/** checked returns a run that had no errors, or throws naming the first. */
export function checked(name: string, run: LoadRun): LoadRun {
  if (run.errors > 0) throw new Error(`${name}: ${run.errors} of ${run.errors + run.requests} requests failed; first: ${run.firstError ?? '?'}`);
  if (run.requests === 0) throw new Error(`${name}: no request completed`);
  return run;
}

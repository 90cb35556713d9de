/**
 * Rounds: every compared pair is measured in alternating rounds (baseline, Latch, baseline,
 * Latch, ...) after a warm-up of each, and each figure is the median over rounds, so that a
 * burst of noise from the shared machine lands on one round of one side, not on a whole figure.
 */
import { runLoad, type LoadOptions, type LoadRun } from './load-generator.js';
import { summarize, type LoadFigures } from './stats.js';

/** The shape of a benchmark run: shorter with --quick, for trying the harness out. */
export interface RunShape {
  rounds: number;
  roundMs: number;
  warmupMs: number;
}

export const FULL_SHAPE: RunShape = { rounds: 3, roundMs: 2_000, warmupMs: 500 };
export const QUICK_SHAPE: RunShape = { rounds: 1, roundMs: 500, warmupMs: 200 };

/** The most requests one round may send, whatever its duration. */
export const ROUND_REQUESTS_MAX = 200_000;

export type Target = Omit<LoadOptions, 'durationMs' | 'requestsMax'>;

/**
 * measureAlternating warms every target up, then runs shape.rounds rounds of each in turn and
 * returns each target's medians. A round with errors fails the whole measurement with the
 * first error, because a figure built on failed requests would be fast and meaningless.
 */
export async function measureAlternating(shape: RunShape, targets: Record<string, Target>): Promise<Record<string, LoadFigures>> {
  const names = Object.keys(targets);
  for (const name of names) checked(name, await runLoad({ ...(targets[name] as Target), durationMs: shape.warmupMs, requestsMax: ROUND_REQUESTS_MAX }));
  const rounds: Record<string, LoadRun[]> = Object.fromEntries(names.map((name) => [name, []]));
  for (let round = 0; round < shape.rounds; round += 1) {
    for (const name of names) {
      const run = checked(name, await runLoad({ ...(targets[name] as Target), durationMs: shape.roundMs, requestsMax: ROUND_REQUESTS_MAX }));
      rounds[name]?.push(run);
    }
  }
  return Object.fromEntries(names.map((name) => [name, summarize(rounds[name] ?? [])]));
}

/** checked returns a run that had no errors, or throws naming the first. */
export function checked(name: string, run: LoadRun): LoadRun {
  if (run.errors > 0) throw new Error(`${name}: ${run.errors} of ${run.errors + run.requests} requests failed; first: ${run.firstError ?? '?'}`);
  if (run.requests === 0) throw new Error(`${name}: no request completed`);
  return run;
}

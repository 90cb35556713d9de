/**
 * Order statistics for the benchmark. Latencies are kept whole (every sample of a round), so
 * percentiles are exact for the samples taken, not estimated from buckets.
 */

/** percentile returns the p-th percentile (0..100) of values by the nearest-rank method. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((x, y) => x - y);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] as number;
}

/** median returns the middle value (the mean of the two middle ones for an even count). */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((x, y) => x - y);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/** One measured round of load: how many requests completed, in how long, and their latencies. */
export interface RoundResult {
  requests: number;
  errors: number;
  elapsedMs: number;
  latenciesMs: number[];
}

/** The medians over rounds of throughput, p50 and p99: what every row of the table reports. */
export interface LoadFigures {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Requests completed in all rounds together. */
  requests: number;
  errors: number;
  rounds: number;
}

/** summarize reduces rounds to their medians: each round's req/s, p50 and p99, then the median of each. */
export function summarize(rounds: readonly RoundResult[]): LoadFigures {
  return {
    requestsPerSecond: median(rounds.map((round) => (round.requests * 1000) / round.elapsedMs)),
    p50Ms: median(rounds.map((round) => percentile(round.latenciesMs, 50))),
    p99Ms: median(rounds.map((round) => percentile(round.latenciesMs, 99))),
    requests: rounds.reduce((sum, round) => sum + round.requests, 0),
    errors: rounds.reduce((sum, round) => sum + round.errors, 0),
    rounds: rounds.length,
  };
}

/**
 * A small seeded PRNG (mulberry32) for reproducible fuzzing: the same seed gives the same
 * sequence of inputs, so a failure can be replayed with LATCH_FUZZ_SEED=<seed>.
 */

/** The seed used when LATCH_FUZZ_SEED is not set. */
export const DEFAULT_FUZZ_SEED = 0x1a7c4;

/** fuzzSeed returns LATCH_FUZZ_SEED as an unsigned 32-bit integer, or the default seed. */
export function fuzzSeed(env: NodeJS.ProcessEnv = process.env): number {
  const text = env['LATCH_FUZZ_SEED'];
  if (text === undefined || text === '') return DEFAULT_FUZZ_SEED;
  const seed = Number(text);
  if (!Number.isSafeInteger(seed) || seed < 0) throw new Error('LATCH_FUZZ_SEED must be a non-negative integer');
  return seed >>> 0;
}

/** fuzzCount returns LATCH_FUZZ_COUNT (how many requests to send), or fallback. */
export function fuzzCount(fallback: number, env: NodeJS.ProcessEnv = process.env): number {
  const text = env['LATCH_FUZZ_COUNT'];
  if (text === undefined || text === '') return fallback;
  const count = Number(text);
  if (!Number.isSafeInteger(count) || count < 1 || count > 1_000_000) throw new Error('LATCH_FUZZ_COUNT must be an integer from 1 to 1000000');
  return count;
}

/** Random draws from one seeded sequence. */
export class SeededRandom {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** next returns a float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  }

  /** int returns an integer in [0, below). */
  int(below: number): number {
    return Math.floor(this.next() * below);
  }

  /** pick returns one element of a non-empty list. */
  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from an empty list');
    return items[this.int(items.length)] as T;
  }

  /** chance returns true with probability p. */
  chance(p: number): boolean {
    return this.next() < p;
  }
}

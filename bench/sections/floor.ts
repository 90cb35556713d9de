/**
 * The floor: the irreducible work of each operation, timed in the same run on the same disk, so
 * that the rows compare Latch with what its guarantees cost and not with a server that skips them.
 *
 * - an Ed25519 signature (noble's primitives, the key expanded once: src/signer/ed25519-sign.ts) and a
 *   verification (noble's verify), the one implementation the daemon and the sandbox use,
 *   on this thread, of a message the size of a policy window's signing input;
 * - a `write` + `fdatasync` of a 300-byte record appended to a file in the run directory (the
 *   disk the audit log and the sandbox journal are on);
 * - a loopback round trip of `GET /health` to the bare node:http server, one keep-alive client.
 *
 * Each is a median over a bounded number of repetitions. The composite floors (what one
 * operation needs) are sums of these medians; see floorOf* below and README "Performance".
 */
import { closeSync, fdatasyncSync, openSync, rmSync, writeSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import * as noble from '@noble/ed25519';
import { verifyEd25519 } from '../../src/signer/ed25519-verify.js';
import { generateSecretKey, publicKeyOf, signEd25519 } from '../../test/support/raw-signing.js';
import { runLoad } from '../load-generator.js';
import { checked, ROUND_REQUESTS_MAX, type RunShape } from '../rounds.js';
import { median } from '../stats.js';

/** About the size of a policy window's JWS signing input. */
const MESSAGE_BYTES = 600;
/** About the size of one audit line or journal record. */
const RECORD_BYTES = 300;
/** Repetitions are bounded by count and by time, whichever comes first. */
const REPEATS_MAX = 2_000;

/** The medians of the irreducible parts, in milliseconds, and the signing rate they imply. */
export interface Floor {
  signMs: number;
  /** noble's own `sign`, which expands the key on every call: what signEd25519's cache saves (docs/decisions.md §16.2). */
  nobleSignMs: number;
  verifyMs: number;
  fdatasyncMs: number;
  roundTripMs: number;
  /** Noble signatures per second on one thread (1000 / signMs over the same samples). */
  signaturesPerSecond: number;
}

/** timedMedian runs work until repeats or budgetMs is reached and returns the median duration. */
function timedMedian(work: () => void, budgetMs: number): number {
  const samples: number[] = [];
  const startMs = performance.now();
  while (samples.length < REPEATS_MAX && performance.now() - startMs < budgetMs) {
    const beforeMs = performance.now();
    work();
    samples.push(performance.now() - beforeMs);
  }
  return median(samples);
}

/** measureFloor times every part; scratchDir must be on the disk the data directories use. */
export async function measureFloor(shape: RunShape, scratchDir: string, barePort: number): Promise<Floor> {
  const budgetMs = Math.max(250, shape.roundMs / 2);
  const key = generateSecretKey();
  const publicKey = publicKeyOf(key);
  const message = randomBytes(MESSAGE_BYTES);
  const signature = signEd25519(message, key);
  // One untimed pass warms the JIT up for each.
  timedMedian(() => signEd25519(message, key), 100);
  const signMs = timedMedian(() => signEd25519(message, key), budgetMs);
  timedMedian(() => noble.sign(message, key), 100);
  const nobleSignMs = timedMedian(() => noble.sign(message, key), budgetMs);
  timedMedian(() => verifyEd25519(signature, message, publicKey), 100);
  const verifyMs = timedMedian(() => {
    if (!verifyEd25519(signature, message, publicKey)) throw new Error('floor: a valid signature did not verify');
  }, budgetMs);

  const file = path.join(scratchDir, `floor-${randomBytes(4).toString('hex')}.log`);
  const fd = openSync(file, 'a', 0o600);
  const record = Buffer.from(`${'x'.repeat(RECORD_BYTES - 1)}\n`);
  let fdatasyncMs: number;
  try {
    fdatasyncMs = timedMedian(() => {
      writeSync(fd, record);
      fdatasyncSync(fd);
    }, budgetMs);
  } finally {
    closeSync(fd);
    rmSync(file, { force: true });
  }

  const health = { port: barePort, concurrency: 1, expectStatus: 200, request: () => ({ method: 'GET' as const, path: '/health' }) };
  checked('floor round trip (warm-up)', await runLoad({ ...health, durationMs: shape.warmupMs, requestsMax: ROUND_REQUESTS_MAX }));
  const trips: number[] = [];
  for (let round = 0; round < shape.rounds; round += 1) {
    const run = checked('floor round trip', await runLoad({ ...health, durationMs: Math.max(250, shape.roundMs / 2), requestsMax: ROUND_REQUESTS_MAX }));
    trips.push(median(run.latenciesMs));
  }
  return { signMs, nobleSignMs, verifyMs, fdatasyncMs, roundTripMs: median(trips), signaturesPerSecond: 1000 / signMs };
}

/** floorText describes a floor's parts for a table note. */
export function floorText(floor: Floor): string {
  return `sign ${floor.signMs.toFixed(3)} ms (noble's sign ${floor.nobleSignMs.toFixed(3)} ms), verify ${floor.verifyMs.toFixed(3)} ms, fdatasync ${floor.fdatasyncMs.toFixed(3)} ms, round trip ${floor.roundTripMs.toFixed(3)} ms`;
}

/**
 * authorizeLatencyFloor is one /authorize alone: the daemon signs the window and the upstream
 * request, the sandbox verifies both; one fdatasync in the daemon (the audit) and one in the
 * sandbox (the journal); two loopback round trips (client to daemon, daemon to sandbox).
 */
export function authorizeLatencyFloor(floor: Floor): number {
  return 2 * floor.signMs + 2 * floor.verifyMs + 2 * floor.fdatasyncMs + 2 * floor.roundTripMs;
}

/**
 * authorizeThroughputFloor is how many authorizations per second the parts allow with `clients`
 * concurrent and group commit: the daemon and the sandbox each on their own core (two
 * signatures per authorization on one, two verifications on the other), and the disk taking one
 * fdatasync per group of `clients` records in each process. The slowest of the three bounds it.
 */
export function authorizeThroughputFloor(floor: Floor, clients: number): number {
  const daemonMs = 2 * floor.signMs;
  const sandboxMs = 2 * floor.verifyMs;
  const diskMs = (2 * floor.fdatasyncMs) / clients;
  return 1000 / Math.max(daemonMs, sandboxMs, diskMs);
}

/**
 * proxyAddedFloor is what proxying one GET must add to the direct request: one signature, its
 * audit fdatasync, and the extra loopback hop. The bench's upstream does not verify (so that the
 * row measures the daemon alone), so the cloud's verification is not part of the added time.
 */
export function proxyAddedFloor(floor: Floor): number {
  return floor.signMs + floor.fdatasyncMs + floor.roundTripMs;
}

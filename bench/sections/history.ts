/**
 * Section 8, flat with history (`npm run bench -- --history`): the same enrolled device with an
 * audit.log of HISTORY_LINES lines (bench/history-builder.ts) and with only the enrollment line.
 *
 * - `latch audit verify` (verifyAudit, in this process, the file in the page cache) in MB/s
 *   against the machine's SHA-256 over the same file (node:crypto, the same bytes, 1 MiB reads):
 *   verifying must hash every line, so that is its floor.
 * - daemon start to the first `GET /health` 200 with the history against without, alternating,
 *   median of `starts`: the daemon must read only the log's tail at start, not its history.
 */
import { createHash } from 'node:crypto';
import { closeSync, openSync, readSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { cloneHome, type BenchStack } from '../bench-stack.js';
import { freePort, spawnNode, wrap } from '../child-process.js';
import { figure, type Figure } from '../figures.js';
import { buildAuditHistory } from '../history-builder.js';
import { median } from '../stats.js';
import { verifyAudit } from '../../src/verify/audit-verify.js';
import { readAuditLines } from '../../src/verify/audit-lines-read.js';
import { sha256 as nobleSha256 } from '@noble/hashes/sha2.js';
import { untilHealthy } from './cold-start.js';

export const HISTORY_LINES = 1_000_000;
const READ_BYTES = 1024 * 1024;

/** sha256Rate hashes file whole with node:crypto and returns bytes per second. */
function sha256Rate(file: string): number {
  const fd = openSync(file, 'r');
  const buffer = Buffer.alloc(READ_BYTES);
  const hash = createHash('sha256');
  const startMs = performance.now();
  let bytes = 0;
  try {
    for (let read = readSync(fd, buffer, 0, READ_BYTES, null); read > 0; read = readSync(fd, buffer, 0, READ_BYTES, null)) {
      hash.update(buffer.subarray(0, read));
      bytes += read;
    }
  } finally {
    closeSync(fd);
  }
  hash.digest();
  return (bytes * 1000) / (performance.now() - startMs);
}

/**
 * noblePerLineRate hashes every line of file on its own with @noble/hashes' SHA-256, as the chain
 * needs and the design card allows, and returns bytes per second: what verify could reach if
 * parsing and checking each line cost nothing.
 */
function noblePerLineRate(file: string): number {
  const fd = openSync(file, 'r');
  const startMs = performance.now();
  let bytes = 0;
  try {
    for (const line of readAuditLines(fd)) {
      nobleSha256(line.bytes);
      bytes += line.bytes.length + 1;
    }
  } finally {
    closeSync(fd);
  }
  return (bytes * 1000) / (performance.now() - startMs);
}

/** startOnce starts `latch daemon` on home and returns the time from spawn to the first /health 200. */
export async function startOnce(stack: BenchStack, home: string, label: string): Promise<number> {
  const port = await freePort();
  const portB = await freePort();
  const spawnedMs = performance.now();
  const child = spawnNode({ entry: 'src/cli/main.ts', args: ['daemon', '--port-a', String(port), '--port-b', String(portB)], env: { ...stack.env, LATCH_HOME: home }, stderrFile: stack.logFile(`history-${label}`) });
  child.stdout?.resume();
  const server = wrap(child, {});
  try {
    return (await untilHealthy(port, child)) - spawnedMs;
  } finally {
    await server.stop();
  }
}

/** measureHistory builds the audit history, measures it, and removes it (the sandbox history comes next). */
export async function measureHistory(stack: BenchStack, options: { lines: number; starts: number; progress: (text: string) => void }): Promise<Figure[]> {
  const empty = cloneHome(stack.home, path.join(stack.root, 'home-no-history'));
  const full = cloneHome(stack.home, path.join(stack.root, 'home-history'));
  options.progress(`8: building an audit.log of ${options.lines} lines`);
  const built = buildAuditHistory(full, options.lines);
  const log = path.join(full, 'audit.log');
  const mb = statSync(log).size / 1e6;

  options.progress('8: latch audit verify against SHA-256 of the same file');
  sha256Rate(log); // Brings the file into the page cache for both.
  const shaRate = sha256Rate(log) / 1e6;
  const verifyStartMs = performance.now();
  const verified = verifyAudit(full);
  const verifyMs = performance.now() - verifyStartMs;
  if (!verified.ok || verified.lines !== options.lines) throw new Error(`history: audit verify failed: ${JSON.stringify(verified)}`);
  const perLineRate = noblePerLineRate(log) / 1e6;

  options.progress('8: daemon start with and without the history');
  const withNone: number[] = [];
  const withHistory: number[] = [];
  for (let n = 0; n < options.starts; n += 1) {
    withNone.push(await startOnce(stack, empty, 'none'));
    withHistory.push(await startOnce(stack, full, 'full'));
  }
  // The sandbox history that follows needs the disk; the whole --history run stays under 2 GiB.
  rmSync(full, { recursive: true, force: true });
  const lines = options.lines.toLocaleString('en-US');
  return [
    figure({
      section: 8,
      name: `latch audit verify, ${lines} lines: MB/s`,
      unit: 'MB/s',
      value: mb / (verifyMs / 1000),
      baseline: shaRate,
      baselineName: 'floor: node:crypto SHA-256 over the same file',
      goal: { kind: 'ratio_at_least', limit: 0.5 },
      note: `${mb.toFixed(0)} MB verified in ${(verifyMs / 1000).toFixed(2)} s; history built in ${(built.buildMs / 1000).toFixed(1)} s`,
    }),
    figure({
      section: 8,
      name: `latch audit verify, ${lines} lines: MB/s against noble per line`,
      unit: 'MB/s',
      value: mb / (verifyMs / 1000),
      baseline: perLineRate,
      baselineName: 'noble SHA-256 of each line alone (what the chain needs, with the hash the design card allows)',
      note: 'no goal: shows how much of verify is the hashing itself',
    }),
    figure({
      section: 8,
      name: `Daemon start with ${lines} audit lines (median of ${options.starts})`,
      unit: 'ms',
      value: median(withHistory),
      baseline: median(withNone),
      baselineName: 'the same daemon start with only the enrollment line',
      goal: { kind: 'ratio_at_most', limit: 1.2 },
    }),
  ];
}

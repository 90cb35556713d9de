/**
 * Reading the process's limits, the connection cap they allow, and the fetch_unavailable error's
 * words (docs/decisions.md §24.1, §24.5). The processes under real limits are in
 * test/build/locked-down.test.ts.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DESCRIPTORS_PER_CONNECTION, DESCRIPTORS_RESERVED, connectionsMaxFor } from '../../src/runtime/descriptor-budget.js';
import { readProcessLimits } from '../../src/runtime/process-limits.js';
import { fetchUnavailable, wasmMemoryAvailable } from '../../src/runtime/wasm-memory.js';

const LIMITS = `Limit                     Soft Limit           Hard Limit           Units
Max cpu time              unlimited            unlimited            seconds
Max open files            64                   1048576              files
Max address space         2147483648           unlimited            bytes
`;

test('readProcessLimits reads the soft limits, unlimited, and nothing from text it does not know', () => {
  assert.deepEqual(readProcessLimits(LIMITS), { addressSpaceBytes: 2147483648, openFiles: 64 });
  assert.deepEqual(readProcessLimits(LIMITS.replace('2147483648', 'unlimited  ')), { addressSpaceBytes: 'unlimited', openFiles: 64 });
  assert.deepEqual(readProcessLimits(''), { addressSpaceBytes: undefined, openFiles: undefined });
  assert.deepEqual(readProcessLimits('Max open files  -1 x\nMax address space 1e9 x\n'), { addressSpaceBytes: undefined, openFiles: undefined });
  // This machine's own /proc/self/limits, where it exists, gives numbers or unlimited.
  if (process.platform === 'linux') assert.notEqual(readProcessLimits().openFiles, undefined);
});

test('connectionsMaxFor keeps the configured cap when descriptors allow it, and lowers it when they do not', () => {
  const cases: Array<[Parameters<typeof connectionsMaxFor>, number]> = [
    [[undefined, 2, 256], 256],
    [['unlimited', 2, 256], 256],
    [[1_048_576, 2, 256], 256],
    [[1024, 2, 256], Math.floor((1024 - DESCRIPTORS_RESERVED) / (2 * DESCRIPTORS_PER_CONNECTION))],
    [[64, 2, 256], 4],
    [[64, 1, 256], 8],
    [[16, 2, 256], 1],
    [[1024, 1, 10], 10],
  ];
  for (const [args, expected] of cases) assert.equal(connectionsMaxFor(...args), expected, JSON.stringify(args));
});

test('fetch_unavailable names the limit in ulimit -v units and GiB, and the remedy names the flag', () => {
  const error = fetchUnavailable(2 * 2 ** 30);
  assert.equal(error.code, 'fetch_unavailable');
  assert.equal(error.status, 503);
  assert.match(error.message, /ulimit -v 2097152, 2 GiB/);
  assert.match(error.message, /nodejs\/node#56596/);
  assert.doesNotMatch(fetchUnavailable('unlimited').message, /ulimit -v [0-9]/);
  // This test process runs without an address-space limit.
  assert.equal(wasmMemoryAvailable(), true);
});

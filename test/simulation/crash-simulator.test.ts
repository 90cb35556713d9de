/**
 * The crash simulator's quick seed set (docs/decisions.md §33): the real stores over a simulated
 * disk, crashed at every write, fsync and rename of two seeds' workloads in turn, then at random
 * points of more seeds. After each crash the replay must keep every acknowledged outcome, show an
 * unacknowledged one whole or not at all, never undercount a budget, and agree with audit.log,
 * written by the real audit writer on the same simulated disk, whose chain must verify.
 * `npm run simulate -- --seeds N` runs the long version.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { exploreSeed } from './simulate.js';

test('crashing at every crash point of two seeds loses no acknowledged operation', async () => {
  for (const seed of [1, 2]) {
    const report = await exploreSeed(seed);
    assert.ok(report.crashPoints > 50, `seed ${seed} passes many crash points (${report.crashPoints})`);
    assert.ok(report.acknowledged > report.runs, `seed ${seed} acknowledges operations before its crashes`);
    assert.deepEqual(report.problems, [], `seed ${seed}`);
    assert.equal(report.lost, 0);
  }
});

test('crashing at random points of more seeds loses nothing either', async () => {
  for (let seed = 100; seed < 112; seed++) {
    const report = await exploreSeed(seed, 4);
    assert.deepEqual(report.problems, [], `seed ${seed}`);
  }
});

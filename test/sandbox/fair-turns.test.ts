import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FairTurns } from '../../src/sandbox/http/fair-turns.js';

/** nextLoopTurn resolves after the event loop has gone round once more (a poll phase included). */
const nextLoopTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

test('turns are handed out first come, first served', async () => {
  const turns = new FairTurns();
  const order: number[] = [];
  await Promise.all([1, 2, 3, 4].map((n) => turns.next().then(() => order.push(n))));
  assert.deepEqual(order, [1, 2, 3, 4]);
  assert.equal(turns.waitingCount, 0);
});

test('each turn is a turn of the event loop of its own: work between two turns can run', async () => {
  const turns = new FairTurns();
  const events: string[] = [];
  const first = turns.next().then(() => {
    events.push('turn 1');
    // What the first turn schedules (an answer, a write) must not wait for every later turn.
    setImmediate(() => events.push('work set in turn 1'));
  });
  const rest = [2, 3, 4].map((n) => turns.next().then(() => events.push(`turn ${n}`)));
  await first;
  assert.equal(turns.waitingCount, 3, 'the other turns still wait when the first one runs');
  await Promise.all(rest);
  // Turn 2 was queued before the work, so it comes first; then the work, before turns 3 and 4.
  assert.deepEqual(events, ['turn 1', 'turn 2', 'work set in turn 1', 'turn 3', 'turn 4']);
});

test('a lone caller gets its turn at once and the turns start again after going idle', async () => {
  const turns = new FairTurns();
  await turns.next();
  assert.equal(turns.waitingCount, 0);
  await nextLoopTurn();
  let resolved = false;
  const again = turns.next().then(() => (resolved = true));
  assert.equal(resolved, false, 'a turn is never given synchronously');
  await again;
  assert.equal(resolved, true);
});

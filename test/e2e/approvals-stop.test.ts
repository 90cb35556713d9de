/**
 * A stop answers requests that hold on for an owner's decision (docs/decisions.md §24.3): with
 * `Prefer: wait=60` requests in flight, close() answers each at once with its pending approval
 * (202), logs that the stop began, and finishes long before its deadline; the log's 202 lines are
 * the answers the clients actually received.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { addAgent } from '../../src/datadir/agents.js';
import { startStack, type Stack } from '../support/stack.js';

const POLICY = { v: 1, default: 'allow', rules: [{ id: 'large', min_amount: '5.00', decision: 'ask' }] };
const WAITERS = 3;
/** The close deadline: the answers must come long before it, not when it cuts them off. */
const CLOSE_DEADLINE_MS = 30_000;

let stack: Stack;
before(async () => {
  stack = await startStack();
  writeFileSync(path.join(stack.home, 'policy.json'), JSON.stringify(POLICY), { mode: 0o600 });
  addAgent(stack.home, 'shopper');
});
after(() => stack.close());

async function pendingCount(): Promise<number> {
  const list = await stack.a.get('/approvals?status=pending_approval');
  assert.equal(list.status, 200, list.text);
  return (list.body.approvals as unknown[]).length;
}

test('a stop answers Prefer: wait requests at once with their pending approval, and logs that it began', async () => {
  const shopper = stack.agent('shopper');
  const answers = Array.from({ length: WAITERS }, (_, i) =>
    shopper.post('/authorize', { card_id: stack.cards[0].card_id, amount: '6.00', merchant_name: 'big.example.com' }, { 'idempotency-key': `stop-wait-${i}`, prefer: 'wait=60' }),
  );
  const deadline = Date.now() + 15_000;
  while ((await pendingCount()) < WAITERS) {
    assert.ok(Date.now() < deadline, `${WAITERS} approvals were not pending within 15 s`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const startedMs = Date.now();
  const closed = stack.daemon.close({ deadlineMs: CLOSE_DEADLINE_MS, reason: 'SIGTERM' });
  const received = await Promise.all(answers);
  await closed;
  const elapsedMs = Date.now() - startedMs;
  for (const answer of received) {
    assert.equal(answer.status, 202, answer.text);
    assert.equal(answer.body.status, 'pending_approval');
    assert.match(answer.body.approval_id, /^ap_/);
  }
  assert.ok(elapsedMs < CLOSE_DEADLINE_MS / 3, `the stop took ${elapsedMs} ms: the waits were cut off at the deadline, not answered`);

  const lines = stack.logs().trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
  const stopping = lines.findIndex((line) => line['event'] === 'daemon_stopping');
  assert.ok(stopping >= 0, 'daemon_stopping is logged');
  assert.equal(lines[stopping]?.['reason'], 'SIGTERM');
  assert.equal(lines[stopping]?.['deadline_ms'], CLOSE_DEADLINE_MS);
  const answered = lines.slice(stopping).filter((line) => line['event'] === 'request' && line['route'] === '/authorize' && line['status'] === 202);
  assert.equal(answered.length, WAITERS, 'each wait is logged as the 202 its client received');
  assert.equal(lines.at(-1)?.['event'], 'daemon_stopped');
});

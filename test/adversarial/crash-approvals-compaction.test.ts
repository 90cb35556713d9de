/**
 * The red team's reproduction (issue 42, docs/decisions.md §33): under approval load, with a
 * state.journal that compacts every few kilobytes (small-compaction-daemon.ts), many approvals are
 * asked, then denied (and a few approved) concurrently, so that compactions start while decisions
 * are being written; then the daemon is killed with SIGKILL and started again. Every decision that
 * was answered 200 must still be decided as answered, and audit.log must agree. Before the stores
 * became state machines, ApprovalBook.update changed memory only after its append, so a compaction
 * taken in between wrote a snapshot without the decision: denials answered 200 came back
 * `pending_approval` after the kill.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { addAgent, readAgentToken } from '../../src/datadir/agents.js';
import { readToken } from '../../src/datadir/token.js';
import { readAudit } from '../../src/verify/audit-read.js';
import { verifyAudit } from '../../src/verify/audit-verify.js';
import { JsonClient, startStack, type Stack } from '../support/stack.js';
import { killAll, killHard, startChild, waitForLine, type Child } from './child-process.js';

const STARTUP_MS = 30_000;
const APPROVALS = 240;
const CONCURRENCY = 16;
const POLICY = { v: 1, default: 'allow', rules: [{ id: 'large', min_amount: '5.00', decision: 'ask' }] };

let stack: Stack;
before(async () => {
  stack = await startStack();
  await stack.daemon.close({ deadlineMs: 1_000 });
  writeFileSync(path.join(stack.home, 'policy.json'), JSON.stringify(POLICY), { mode: 0o600 });
  addAgent(stack.home, 'shopper');
});
after(async () => {
  await killAll();
  await stack.close();
});

async function startDaemon(): Promise<{ child: Child; owner: JsonClient; shopper: JsonClient }> {
  const child = startChild('test/adversarial/small-compaction-daemon.ts', [], { LATCH_HOME: stack.home, TEST_COMPACTION_BYTES: '8192' });
  const line = await waitForLine(child, (text) => text.includes('"daemon_listening"'), STARTUP_MS);
  const base = `http://127.0.0.1:${(JSON.parse(line) as { port_a: number }).port_a}`;
  return { child, owner: new JsonClient(base, () => readToken(stack.home)), shopper: new JsonClient(base, () => readAgentToken(stack.home, 'shopper')) };
}

/** inParallel runs work over items, at most limit at a time. */
async function inParallel<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: limit }, async () => {
    while (next < items.length) await work(items[next++] as T);
  }));
}

test('every decision answered 200 survives kill -9 after compactions under approval load, and audit.log agrees', { timeout: 170_000 }, async () => {
  const daemon = await startDaemon();
  // Each worker asks and then decides at once (an agent may have 20 pending): asks, denials and
  // approvals (every tenth: it signs and registers) all interleave, and so do their records.
  const answered = new Map<string, string>();
  await inParallel(Array.from({ length: APPROVALS }, (_, i) => i), CONCURRENCY, async (i) => {
    const asked = await daemon.shopper.post('/authorize', { card_id: stack.cards[0].card_id, amount: '6.00', merchant_name: `load-${i}.example.com` }, { 'idempotency-key': `load-${i}` });
    assert.equal(asked.status, 202, asked.text);
    const id = asked.body.approval_id as string;
    const decided = i % 10 === 0 ? await daemon.owner.post(`/approvals/${id}/approve`, {}) : await daemon.owner.post(`/approvals/${id}/deny`, { reason: 'load' });
    if (decided.status === 200) answered.set(id, decided.body.status as string);
  });
  assert.ok(answered.size >= APPROVALS * 0.9, `most decisions were answered: ${answered.size}`);
  await killHard(daemon.child);

  const again = await startDaemon();
  const lost: string[] = [];
  for (const [id, status] of answered) {
    const found = await again.owner.get(`/approvals/${id}`);
    assert.equal(found.status, 200, found.text);
    if (found.body.status !== status) lost.push(`${id}: answered ${status}, after the restart ${String(found.body.status)}`);
  }
  assert.deepEqual(lost, [], `${lost.length} of ${answered.size} acknowledged decisions were lost`);

  // audit.log agrees: one decision line per answered decision, with the same outcome.
  assert.equal(verifyAudit(stack.home).ok, true);
  const decisions = new Map<string, string>();
  for (const record of readAudit(stack.home, { filter: (line) => typeof line.operation === 'string' && line.operation.startsWith('approval_') })) {
    const line = record as unknown as Record<string, unknown>;
    if (['approval_denied', 'approval_approved', 'approval_failed'].includes(line['operation'] as string)) decisions.set(line['approval_id'] as string, (line['operation'] as string).slice('approval_'.length));
  }
  for (const [id, status] of answered) assert.equal(decisions.get(id), status, `audit.log's decision of ${id}`);
  await killHard(again.child);
});

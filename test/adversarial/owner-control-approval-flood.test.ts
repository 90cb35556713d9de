/**
 * Red team on owner control (issue 21, item 6): one agent asking again and again must not bury the
 * owner. Pending approvals are capped per caller (approvals_pending_max_per_agent, 20 by default;
 * beyond it 429 too_many_pending_approvals), asks count in velocity limits, and at most one
 * notifier process runs at a time.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { addAgent } from '../../src/datadir/agents.js';
import { JsonClient, startStack, type Stack } from '../support/stack.js';

let stack: Stack;

before(async () => {
  stack = await startStack();
  const file = path.join(stack.home, 'policy.json');
  const policy = { v: 1, rules: [{ id: 'ask-all', agents: ['*'], decision: 'ask' }], velocity: [{ id: 'burst', agents: ['slow'], per_seconds: 3600, max_count: 3, over: 'deny' }] };
  writeFileSync(`${file}.tmp`, JSON.stringify(policy), { mode: 0o600 });
  renameSync(`${file}.tmp`, file);
});
after(() => stack.close());

function agentClient(name: string): JsonClient {
  addAgent(stack.home, name);
  return stack.agent(name);
}

function setConfig(fields: Record<string, unknown>): void {
  const file = path.join(stack.home, 'config.json');
  const config = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  writeFileSync(`${file}.tmp`, `${JSON.stringify({ ...config, ...fields })}\n`, { mode: 0o600 });
  renameSync(`${file}.tmp`, file);
}

const ask = (agent: JsonClient, i: number) => agent.post('/authorize', { card_id: stack.cards[0].card_id, amount: '1.00', merchant_name: `flood-${i}.example.com` });

test('item 6: 30 asks at once from one agent make 20 pending approvals; the rest are 429 too_many_pending_approvals; one notifier runs at a time', async () => {
  const script = path.join(stack.root, 'notify.sh');
  const log = path.join(stack.root, 'notify.log');
  writeFileSync(script, '#!/bin/sh\necho start >> "$1"\nsleep 0.2\necho end >> "$1"\n', { mode: 0o700 });
  setConfig({ approval_notify: [script, log] });
  const flood = agentClient('flood');
  const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => ask(flood, i)));
  const statuses = answers.map((answer) => `${answer.status} ${answer.body?.error?.code ?? answer.body?.status}`);
  assert.equal(statuses.filter((s) => s === '202 pending_approval').length, 20, statuses.join(', '));
  assert.equal(statuses.filter((s) => s === '429 too_many_pending_approvals').length, 10, statuses.join(', '));
  const other = await ask(agentClient('calm'), 99);
  assert.equal(other.status, 202, 'the cap is per agent');

  const deadline = Date.now() + 60_000;
  let lines: string[] = [];
  for (;;) {
    lines = existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : [];
    const starts = lines.filter((line) => line === 'start').length;
    if (starts >= 2 && starts === lines.length - starts) break;
    assert.ok(Date.now() < deadline, `the notifier runs did not finish: ${lines.join(' ')}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  for (let i = 0; i < lines.length; i++) assert.equal(lines[i], i % 2 === 0 ? 'start' : 'end', `two notifiers ran at once: ${lines.join(' ')}`);
  assert.ok(lines.length / 2 < 21, `coalesced: ${lines.length / 2} runs for 21 approvals`);

  setConfig({ approval_notify: undefined, approvals_pending_max_per_agent: 22 });
  assert.equal((await ask(flood, 30)).status, 202, 'config.json raises the cap');
  assert.equal((await ask(flood, 31)).status, 202);
  assert.equal((await ask(flood, 32)).body?.error?.code, 'too_many_pending_approvals');
});

test('item 6: asks count in velocity limits', async () => {
  const slow = agentClient('slow');
  for (let i = 0; i < 3; i++) assert.equal((await ask(slow, 100 + i)).status, 202);
  const fourth = await ask(slow, 103);
  assert.deepEqual([fourth.status, fourth.body?.error?.code, fourth.body?.error?.rule], [403, 'policy_denied', 'burst'], fourth.text);
});

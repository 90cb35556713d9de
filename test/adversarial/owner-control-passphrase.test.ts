/**
 * Red team on owner control (issue 21, items 3 and 11): parallel wrong passphrases must not outrun
 * the lockout (at most 5 are ever checked in 15 minutes, whatever the concurrency), and clearing
 * the passphrase ends the lockout it carried.
 */
import assert from 'node:assert/strict';
import { renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { addAgent } from '../../src/datadir/agents.js';
import { setApprovalPassphrase } from '../../src/datadir/approval-passphrase.js';
import { JsonClient, runLatch, startStack, type Stack } from '../support/stack.js';

const PASSPHRASE = 'correct horse battery staple';
let stack: Stack;
let agent: JsonClient;

before(async () => {
  stack = await startStack();
  addAgent(stack.home, 'shopper');
  agent = stack.agent('shopper');
  const file = path.join(stack.home, 'policy.json');
  writeFileSync(`${file}.tmp`, JSON.stringify({ v: 1, rules: [{ id: 'ask-all', agents: ['*'], decision: 'ask' }] }), { mode: 0o600 });
  renameSync(`${file}.tmp`, file);
  setApprovalPassphrase(stack.home, PASSPHRASE);
});
after(() => stack.close());

async function pendingApproval(): Promise<string> {
  const asked = await agent.post('/authorize', { card_id: stack.cards[0].card_id, amount: '2.00', merchant_name: 'guess.example.com' });
  assert.equal(asked.status, 202, asked.text);
  return asked.body.approval_id as string;
}

test('item 3: 150 wrong passphrases sent at once: at most 5 are checked, the rest are 429, and then the right one is refused too', async () => {
  const id = await pendingApproval();
  const answers = await Promise.all(Array.from({ length: 150 }, (_, i) => stack.a.post(`/approvals/${id}/approve`, { passphrase: `wrong guess number ${i}` })));
  const codes = answers.map((answer) => `${answer.status} ${answer.body?.error?.code}`);
  const checked = codes.filter((code) => code === '401 invalid_passphrase').length;
  assert.ok(checked <= 5, `${checked} wrong passphrases were checked`);
  assert.equal(codes.filter((code) => code === '429 too_many_attempts').length, 150 - checked, codes.join(', '));
  const right = await stack.a.post(`/approvals/${id}/approve`, { passphrase: PASSPHRASE });
  assert.deepEqual([right.status, right.body?.error?.code], [429, 'too_many_attempts'], right.text);
});

test('item 11: latch approvals passphrase clear ends the lockout', async () => {
  const id = await pendingApproval();
  const locked = await stack.a.post(`/approvals/${id}/approve`, { passphrase: PASSPHRASE });
  assert.equal(locked.status, 429, 'still locked from the guesses above');
  const cleared = await runLatch(['approvals', 'passphrase', 'clear'], { LATCH_HOME: stack.home });
  assert.equal(cleared.code, 0, cleared.stderr);
  const approved = await stack.a.post(`/approvals/${id}/approve`, {});
  assert.equal(approved.status, 200, approved.text);
  assert.equal(approved.body.status, 'approved');
});

/**
 * The audit log records what happened to an approval (docs/decisions.md §20): `approval_approved`
 * only once the approved request is signed and registered, `approval_failed` when the cloud
 * refused it, and `approval_not_applied` (with the error) for an approval given while it could
 * not be applied, which stays pending.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { addAgent } from '../../src/datadir/agents.js';
import { pauseSigning, resumeSigning } from '../../src/datadir/pause.js';
import { assertError } from '../support/e2e-assert.js';
import { JsonClient, startStack, type Stack } from '../support/stack.js';

const POLICY = { v: 1, default: 'allow', rules: [{ id: 'large', min_amount: '5.00', decision: 'ask' }] };

let stack: Stack;
let shopper: JsonClient;

before(async () => {
  stack = await startStack();
  writeFileSync(path.join(stack.home, 'policy.json'), JSON.stringify(POLICY), { mode: 0o600 });
  addAgent(stack.home, 'shopper');
  shopper = stack.agent('shopper');
});
after(() => stack.close());

function auditLines(): Array<Record<string, any>> {
  return readFileSync(path.join(stack.home, 'audit.log'), 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, any>);
}

/**
 * approvalLines returns the operation (and code) of each audit line about one approval, in order;
 * the refusal lines (issue 44 item 3) are written after the answer and are left out here.
 */
function approvalLines(approvalId: string): string[] {
  return auditLines()
    .filter((line) => line['approval_id'] === approvalId && line['operation'] !== 'refused')
    .map((line) => (line['code'] === undefined ? line['operation'] : `${line['operation']} ${line['code']}`));
}

async function ask(amount: string, key: string): Promise<string> {
  const answer = await shopper.post('/authorize', { card_id: stack.cards[0].card_id, amount, merchant_name: 'big.example.com' }, { 'idempotency-key': key });
  assert.equal(answer.status, 202, answer.text);
  return answer.body.approval_id as string;
}

test('approving while paused is not recorded as approved: each attempt has a not-applied line, the one that signs has the approved line after its signature', async () => {
  const id = await ask('6.00', 'audit-paused-1');
  pauseSigning(stack.home, undefined);
  try {
    assertError(await stack.a.post(`/approvals/${id}/approve`, {}), 409, 'daemon_paused');
    assertError(await stack.a.post(`/approvals/${id}/approve`, {}), 409, 'daemon_paused');
    assert.equal((await stack.a.get(`/approvals/${id}`)).body.status, 'pending_approval');
    assert.deepEqual(approvalLines(id), ['approval_requested', 'approval_not_applied daemon_paused', 'approval_not_applied daemon_paused']);
  } finally {
    resumeSigning(stack.home);
  }
  const approved = await stack.a.post(`/approvals/${id}/approve`, {});
  assert.equal(approved.status, 200, approved.text);
  assert.equal(approved.body.status, 'approved');
  const policyId = approved.body.authorization.policy_id as string;
  assert.deepEqual(approvalLines(id), ['approval_requested', 'approval_not_applied daemon_paused', 'approval_not_applied daemon_paused', 'approval_approved']);
  const lines = auditLines();
  const signature = lines.findIndex((line) => line['operation'] === 'authorize' && line['policy_id'] === policyId);
  const decision = lines.findIndex((line) => line['operation'] === 'approval_approved' && line['approval_id'] === id);
  assert.ok(signature >= 0 && decision > signature, 'the approved line follows the signature it led to');
  assert.equal(lines[decision]?.['policy_id'], policyId, 'and names the authorization');

  // Decided once: a second approval is refused and writes nothing.
  assertError(await stack.a.post(`/approvals/${id}/approve`, {}), 409, 'approval_not_pending');
  assert.equal(approvalLines(id).length, 4);
});

test('an approval the cloud refuses is recorded as failed, with the cloud’s code, never as approved', async () => {
  // More than the card holds: the cloud refuses the window.
  const id = await ask('900.00', 'audit-refused-1');
  const answer = await stack.a.post(`/approvals/${id}/approve`, {});
  assert.equal(answer.status, 200, answer.text);
  assert.equal(answer.body.status, 'failed');
  const code = answer.body.error.code as string;
  assert.deepEqual(approvalLines(id), ['approval_requested', `approval_failed ${code}`]);
});

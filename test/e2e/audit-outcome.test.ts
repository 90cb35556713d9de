/**
 * Every window sent to the cloud gets an outcome line after the answer, so the audit log tells a
 * refused authorization from a granted one; `latch audit --operation` selects them.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, test } from 'node:test';
import { runLatch, startStack, type Stack } from '../support/stack.js';

let stack: Stack;
before(async () => {
  stack = await startStack();
});
after(() => stack.close());

async function outcomeOf(policyId: string): Promise<Record<string, unknown>> {
  // The outcome line joins the next group commit; it is not awaited by the answer.
  for (let i = 0; i < 100; i++) {
    const lines = readFileSync(path.join(stack.home, 'audit.log'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    const found = lines.find((line) => line['operation'] === 'authorization_outcome' && line['policy_id'] === policyId);
    if (found !== undefined) return found;
    await sleep(20);
  }
  throw new Error(`no outcome line for ${policyId}`);
}

test('a registered authorization and a refused one each get their outcome line after the signature line', async () => {
  const card = stack.cards[1].card_id;
  const granted = await stack.a.post('/authorize', { card_id: card, amount: '1.00', merchant_name: 'shop.example.com' });
  assert.equal(granted.status, 200);
  const grantedLine = await outcomeOf(granted.body.policy_id as string);
  assert.deepEqual([grantedLine['outcome'], grantedLine['code'], grantedLine['agent']], ['registered', null, 'owner']);

  const refused = await stack.a.post('/authorize', { card_id: card, amount: '999.00', merchant_name: 'shop.example.com' });
  assert.equal(refused.body.error.code, 'insufficient_funds');
  const lines = readFileSync(path.join(stack.home, 'audit.log'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
  const signature = lines.filter((line) => line['operation'] === 'authorize').at(-1) as Record<string, unknown>;
  const refusedLine = await outcomeOf(signature['policy_id'] as string);
  assert.deepEqual([refusedLine['outcome'], refusedLine['code']], ['refused', 'insufficient_funds']);
  assert.ok((refusedLine['seq'] as number) > (signature['seq'] as number));

  const listed = await runLatch(['audit', '--operation', 'authorization_outcome'], { LATCH_HOME: stack.home });
  assert.equal(listed.code, 0);
  assert.match(listed.stdout, new RegExp(`${signature['policy_id'] as string} refused \\(insufficient_funds\\)`));
  assert.match(listed.stdout, new RegExp(`${granted.body.policy_id as string} registered`));
  const verify = await runLatch(['audit', 'verify'], { LATCH_HOME: stack.home });
  assert.equal(verify.code, 0, verify.stdout + verify.stderr);
});

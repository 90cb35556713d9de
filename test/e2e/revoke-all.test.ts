/**
 * `latch revoke --all`, the owner's brake for what is already out there, against the real daemon
 * and sandbox: as the owner it revokes every active authorization; with --agent NAME only that
 * agent's; used ones are left alone; a second run finds nothing.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { addAgent } from '../../src/datadir/agents.js';
import { JsonClient, runLatch, startStack, type Stack } from '../support/stack.js';

let stack: Stack;
let card: string;
before(async () => {
  stack = await startStack();
  card = stack.cards[0].card_id;
  addAgent(stack.home, 'shopper');
  addAgent(stack.home, 'travel');
});
after(() => stack.close());

const env = () => ({ LATCH_HOME: stack.home, LATCH_URL: `http://127.0.0.1:${stack.portA}` });
const agent = (name: string) => stack.agent(name);

async function authorize(client: JsonClient, merchant: string): Promise<string> {
  const answer = await client.post('/authorize', { card_id: card, amount: '1.00', merchant_name: merchant });
  assert.equal(answer.status, 200, answer.text);
  return answer.body.policy_id as string;
}

async function statusOf(policyId: string): Promise<string> {
  return (await stack.a.get(`/authorizations/${policyId}`)).body.status as string;
}

test('revoke --all --agent NAME revokes only that agent\'s active authorizations', async () => {
  const shopperIds = [await authorize(agent('shopper'), 'a.example.com'), await authorize(agent('shopper'), 'b.example.com')];
  const travelId = await authorize(agent('travel'), 'c.example.com');
  const result = await runLatch(['revoke', '--all', '--agent', 'shopper', '--json'], env());
  assert.equal(result.code, 0, result.stderr);
  const answer = JSON.parse(result.stdout) as { revoked: string[]; already_ended: string[] };
  assert.deepEqual([...answer.revoked].sort(), [...shopperIds].sort());
  for (const id of shopperIds) assert.equal(await statusOf(id), 'revoked');
  assert.equal(await statusOf(travelId), 'active');
});

test('revoke --all as the owner revokes every active one, leaves used ones, and a second run finds nothing', async () => {
  const ownerId = await authorize(stack.a, 'd.example.com');
  const usedId = await authorize(agent('travel'), 'e.example.com');
  const charged = await stack.charge(card, 'e.example.com', '1.00');
  assert.equal(charged.body.decision, 'approved');
  const result = await runLatch(['revoke', '--all', '--reason', 'laptop lost'], env());
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, new RegExp(`Revoked ${ownerId}\\.`));
  assert.match(result.stdout, /Revoked \d+ authorizations?\./);
  assert.equal(await statusOf(ownerId), 'revoked');
  assert.equal(await statusOf(usedId), 'used');
  const active = await stack.a.get('/authorizations?status=active');
  assert.deepEqual(active.body.authorizations, []);
  const again = await runLatch(['revoke', '--all'], env());
  assert.equal(again.code, 0);
  assert.match(again.stdout, /No active authorization was left to revoke\./);
});

test('revoke --all refuses a policy_id or an idempotency key beside it', async () => {
  assert.equal((await runLatch(['revoke', '--all', 'pw_abc'], env())).code, 2);
  assert.equal((await runLatch(['revoke', '--all', '--idempotency-key', 'k1'], env())).code, 2);
  assert.equal((await runLatch(['revoke'], env())).code, 2);
});

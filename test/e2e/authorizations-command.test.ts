/**
 * `latch authorizations` (issue 37 item 6): the authorizations this device signed, with who asked,
 * the merchant and the status now; `--agent NAME` (the owner filtering), an agent's own with
 * LATCH_AGENT, and `--json`.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { addAgent } from '../../src/datadir/agents.js';
import { EXIT } from '../../src/cli/exit-codes.js';
import { runLatch, startStack, type Stack } from '../support/stack.js';

let stack: Stack;
let ownerId: string;
let shopperId: string;
before(async () => {
  stack = await startStack();
  addAgent(stack.home, 'shopper');
  const owner = await stack.a.post('/authorize', { card_id: stack.cards[0].card_id, amount: '4.00', merchant_name: 'owner-shop.example.com' });
  const shopper = await stack.agent('shopper').post('/authorize', { card_id: stack.cards[0].card_id, amount: '12.50', merchant_name: 'books.example.com' });
  assert.equal(owner.status, 200, owner.text);
  assert.equal(shopper.status, 200, shopper.text);
  ownerId = owner.body.policy_id;
  shopperId = shopper.body.policy_id;
});
after(() => stack.close());

const latch = (args: string[], env: NodeJS.ProcessEnv = {}) => runLatch(args, { LATCH_HOME: stack.home, LATCH_URL: `http://127.0.0.1:${stack.portA}`, ...env });

test('the owner lists every authorization with its agent, merchant, amount and status', async () => {
  const run = await latch(['authorizations']);
  assert.equal(run.code, EXIT.ok, run.stderr);
  const [header, ...rows] = run.stdout.trimEnd().split('\n');
  assert.match(header ?? '', /^AUTHORIZATION\s+CREATED\s+AGENT\s+MERCHANT\s+AMOUNT\s+KIND\s+STATUS\s+EXPIRES\s+CARD$/);
  assert.match(rows[0] ?? '', new RegExp(`^${shopperId}\\s+\\S+\\s+shopper\\s+books\\.example\\.com\\s+12\\.50 USD\\s+one_time\\s+active`));
  assert.match(rows[1] ?? '', new RegExp(`^${ownerId}\\s+\\S+\\s+owner\\s+owner-shop\\.example\\.com\\s+4\\.00 USD`));
});

test('--agent NAME filters as the owner; LATCH_AGENT lists the agent\'s own; --json is the page', async () => {
  const filtered = JSON.parse((await latch(['authorizations', '--agent', 'shopper', '--json'])).stdout);
  assert.deepEqual(filtered.authorizations.map((a: { policy_id: string }) => a.policy_id), [shopperId]);
  assert.equal(filtered.has_more, false);
  const own = await latch(['authorizations'], { LATCH_AGENT: 'shopper' });
  assert.equal(own.code, EXIT.ok, own.stderr);
  assert.ok(own.stdout.includes(shopperId) && !own.stdout.includes(ownerId), own.stdout);
  const bad = await latch(['authorizations', '--agent', 'Not A Name']);
  assert.equal(bad.code, EXIT.usage);
});

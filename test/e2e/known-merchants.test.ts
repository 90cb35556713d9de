/**
 * A merchant is known once an authorization there was used or approved (docs/policy.md), whoever
 * asks and whenever: a charge the cloud settled makes the next request there known even when nobody
 * listed authorizations in between (issue 37 item 2, docs/decisions.md §31.2).
 */
import assert from 'node:assert/strict';
import { renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { addAgent } from '../../src/datadir/agents.js';
import { startStack, type JsonClient, type Stack } from '../support/stack.js';

let stack: Stack;
let shopper: JsonClient;
before(async () => {
  stack = await startStack();
  addAgent(stack.home, 'shopper');
  shopper = stack.agent('shopper');
});
after(() => stack.close());

let writes = 0;
function writePolicy(value: unknown): void {
  const file = path.join(stack.home, 'policy.json');
  writeFileSync(`${file}.tmp${writes}`, JSON.stringify(value), { mode: 0o600 });
  renameSync(`${file}.tmp${writes++}`, file);
}

const card = () => stack.cards[0].card_id;
const authorize = (client: JsonClient, merchant: string, amount: string) => client.post('/authorize', { card_id: card(), amount, merchant_name: merchant });

for (const [name, who] of [
  ['the owner', () => stack.a],
  ['an agent', () => shopper],
] as const) {
  test(`${name}: a settled charge makes the merchant known to the next request, with no listing in between`, async () => {
    const merchant = `charged-${name === 'the owner' ? 'owner' : 'agent'}.example.com`;
    writePolicy({ v: 1 });
    const first = await authorize(stack.a, merchant, '12.50');
    assert.equal(first.status, 200, first.text);
    const charged = await stack.charge(card(), merchant, '12.50');
    assert.equal(charged.status, 200, charged.text);

    writePolicy({ v: 1, default: 'allow', new_merchant: 'ask' });
    const never = await authorize(who(), `never-${merchant}`, '1.00');
    assert.equal(never.status, 202, `a merchant never charged still asks: ${never.text}`);
    const next = await authorize(who(), merchant, '3.00');
    assert.equal(next.status, 200, `the charged merchant was called new: ${next.text}`);
    assert.equal(next.body.status, 'active');
  });
}

test('an authorization at the merchant that was not charged leaves it new', async () => {
  const merchant = 'uncharged.example.com';
  writePolicy({ v: 1 });
  assert.equal((await authorize(stack.a, merchant, '2.00')).status, 200);
  writePolicy({ v: 1, default: 'allow', new_merchant: 'ask' });
  const next = await authorize(shopper, merchant, '1.00');
  assert.equal(next.status, 202, next.text);
  assert.equal(next.body.rule, 'new_merchant');
});

test('POST /policy/check answers what the request would get: a charged merchant is known to it too', async () => {
  const merchant = 'checked.example.com';
  writePolicy({ v: 1 });
  assert.equal((await authorize(stack.a, merchant, '5.00')).status, 200);
  assert.equal((await stack.charge(card(), merchant, '5.00')).status, 200);
  writePolicy({ v: 1, default: 'allow', new_merchant: 'ask' });
  const checked = await shopper.post('/policy/check', { card_id: card(), amount: '2.00', merchant_name: merchant });
  assert.equal(checked.status, 200, checked.text);
  assert.deepEqual([checked.body.decision, checked.body.rule], ['allow', 'default'], checked.text);
});

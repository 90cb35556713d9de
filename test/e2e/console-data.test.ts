/**
 * The data the console (and every other surface) shows the owner (issue 37 item 8): each agent's
 * identity key id in GET /agents, and a wrong passphrase that says how many tries remain.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { PASSPHRASE_ATTEMPTS_MAX } from '../../src/owner/passphrase-lockout.js';
import { addAgent } from '../../src/datadir/agents.js';
import { setApprovalPassphrase } from '../../src/datadir/approval-passphrase.js';
import { readIdentityKey } from '../../src/identity/identity-keys.js';
import { JsonClient, startStack, type Stack } from '../support/stack.js';

let stack: Stack;
before(async () => {
  stack = await startStack();
  addAgent(stack.home, 'shopper');
  addAgent(stack.home, 'helper');
});
after(() => stack.close());

test("GET /agents names each agent's identity key id, the one its Web Bot Auth signatures carry", async () => {
  const listed = await stack.a.get('/agents');
  assert.equal(listed.status, 200, listed.text);
  for (const agent of listed.body.agents as Array<{ name: string; identity_key_id: string | null }>) {
    assert.equal(agent.identity_key_id, readIdentityKey(stack.home, agent.name)?.keyId, agent.name);
    assert.match(agent.identity_key_id ?? '', /^[A-Za-z0-9_-]{43}$/, agent.name);
  }
  const signed = await stack.agent('shopper').post('/web-bot-auth/sign', { method: 'GET', url: 'https://shop.example.com/' });
  assert.equal(signed.status, 200, signed.text);
  assert.equal(signed.body.key_id, (listed.body.agents as Array<{ name: string; identity_key_id: string }>).find((a) => a.name === 'shopper')?.identity_key_id);
});

test('a wrong owner passphrase says how many tries remain, and the last one says the checks are locked', async () => {
  setApprovalPassphrase(stack.home, 'correct horse battery staple');
  const anonymous = new JsonClient(`http://127.0.0.1:${stack.portA}`, () => '');
  const messages: string[] = [];
  for (let attempt = 1; attempt <= PASSPHRASE_ATTEMPTS_MAX; attempt++) {
    const wrong = await anonymous.post('/owner/sessions', { passphrase: `wrong guess number ${attempt}` });
    assert.equal(wrong.status, 401, wrong.text);
    assert.equal(wrong.body.error.code, 'invalid_passphrase');
    messages.push(wrong.body.error.message);
  }
  assert.deepEqual(messages, [
    'The owner passphrase is wrong: 4 tries left before every passphrase check locks for 15 minutes.',
    'The owner passphrase is wrong: 3 tries left before every passphrase check locks for 15 minutes.',
    'The owner passphrase is wrong: 2 tries left before every passphrase check locks for 15 minutes.',
    'The owner passphrase is wrong: 1 try left before every passphrase check locks for 15 minutes.',
    'The owner passphrase is wrong, and that was the last try: every passphrase check is locked for 15 minutes.',
  ]);
  assert.equal((await anonymous.post('/owner/sessions', { passphrase: 'correct horse battery staple' })).status, 429);
});

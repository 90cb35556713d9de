/**
 * Red team on owner control (issue 21, items 7, 8 and 9), as an agent holding only its own token:
 * it reads only the transactions of its own authorizations; its Idempotency-Keys are its own and
 * cannot spoil another caller's request; and /health tells it neither which agent names exist nor
 * the owner's pause reason.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { addAgent, readAgentToken } from '../../src/datadir/agents.js';
import { JsonClient, runLatch, startStack, type Stack } from '../support/stack.js';

let stack: Stack;
const agents = new Map<string, { a: JsonClient; b: JsonClient }>();

before(async () => {
  stack = await startStack();
  for (const name of ['alice', 'mallory']) {
    addAgent(stack.home, name);
    const token = () => readAgentToken(stack.home, name);
    agents.set(name, { a: new JsonClient(`http://127.0.0.1:${stack.portA}`, token), b: new JsonClient(`http://127.0.0.1:${stack.portB}`, token) });
  }
});
after(() => stack.close());

const as = (name: string) => agents.get(name) as { a: JsonClient; b: JsonClient };

/** buy authorizes and charges 1.00 at merchant as client, returning the transaction id. */
async function buy(client: JsonClient, merchant: string): Promise<string> {
  const made = await client.post('/authorize', { card_id: stack.cards[0].card_id, amount: '1.00', merchant_name: merchant });
  assert.equal(made.status, 200, made.text);
  const charged = await stack.charge(stack.cards[0].card_id, merchant, '1.00');
  assert.equal(charged.status, 200, charged.text);
  const listed = await stack.a.get('/transactions?limit=100');
  const found = listed.body.transactions.find((t: { merchant_name?: string; policy_id?: string }) => t.policy_id === made.body.policy_id);
  assert.ok(found !== undefined, `the owner sees the transaction at ${merchant}`);
  return found.transaction_id ?? found.id;
}

test('item 7: an agent reads only the transactions of its own authorizations, on A and B', async () => {
  const ownerTx = await buy(stack.a, 'owner-shop.example.com');
  const aliceTx = await buy(as('alice').a, 'alice-shop.example.com');
  for (const [name, own, others] of [
    ['mallory', [], [ownerTx, aliceTx]],
    ['alice', [aliceTx], [ownerTx]],
  ] as const) {
    for (const listener of ['a', 'b'] as const) {
      const client = as(name)[listener];
      const listed = await client.get('/transactions?limit=100');
      assert.equal(listed.status, 200, listed.text);
      const ids = (listed.body.transactions as Array<{ transaction_id?: string; id?: string }>).map((t) => t.transaction_id ?? t.id);
      assert.deepEqual(ids, [...own], `${name} on ${listener} lists only its own`);
      for (const id of others) {
        const one = await client.get(`/transactions/${id}`);
        assert.equal(one.status, 404, `${name} on ${listener} reads ${id}: ${one.text}`);
      }
      for (const id of own) assert.equal((await client.get(`/transactions/${id}`)).status, 200);
    }
  }
});

test("item 8: one agent's Idempotency-Key does not spoil another's request or the owner's", async () => {
  const body = (merchant: string) => ({ card_id: stack.cards[0].card_id, amount: '1.00', merchant_name: merchant });
  const first = await as('mallory').a.post('/authorize', body('mallory.example.com'), { 'idempotency-key': 'shared-key' });
  assert.equal(first.status, 200, first.text);
  const alice = await as('alice').a.post('/authorize', body('alice-again.example.com'), { 'idempotency-key': 'shared-key' });
  assert.equal(alice.status, 200, `alice's request with the same key is her own: ${alice.text}`);
  assert.notEqual(alice.body.policy_id, first.body.policy_id);
  const owner = await stack.a.post('/authorize', body('owner-again.example.com'), { 'idempotency-key': 'shared-key' });
  assert.equal(owner.status, 200, `the owner's too: ${owner.text}`);
  const replay = await as('alice').a.post('/authorize', body('alice-again.example.com'), { 'idempotency-key': 'shared-key' });
  assert.equal(replay.body.policy_id, alice.body.policy_id, 'a retry still gets the same window');
});

test('item 9: /health answers a daemon proof alike for a known and an unknown Latch-Agent, and keeps the pause reason for callers with a token', async () => {
  const challenge = Buffer.alloc(32, 7).toString('base64url');
  const probe = (agent: string) => fetch(`http://127.0.0.1:${stack.portA}/health`, { headers: { 'latch-challenge': challenge, 'latch-agent': agent } });
  const known = await probe('alice');
  const unknown = await probe('nobody-here');
  assert.equal(known.status, unknown.status);
  const proofHeaders = (response: Response) => [...response.headers.keys()].filter((name) => name.startsWith('latch-')).sort();
  assert.deepEqual(proofHeaders(known), proofHeaders(unknown), 'the same headers for a known and an unknown agent');

  const paused = await runLatch(['pause', '--reason', 'card stolen at the airport'], { LATCH_HOME: stack.home });
  assert.equal(paused.code, 0, paused.stderr);
  try {
    const anonymous = await fetch(`http://127.0.0.1:${stack.portA}/health`);
    const text = await anonymous.text();
    assert.ok(!text.includes('airport'), `public /health hides the reason: ${text}`);
    assert.ok(JSON.parse(text).paused?.since !== undefined, 'but says it is paused');
    // A caller with a token learns the reason where it is refused (docs/decisions.md §17.9, §20.8).
    const refused = await as('alice').a.post('/authorize', { card_id: stack.cards[0].card_id, amount: '1.00', merchant_name: 'paused.example.com' });
    assert.equal(refused.body?.error?.code, 'daemon_paused');
    assert.match(refused.body.error.message, /card stolen at the airport/);
  } finally {
    await runLatch(['resume'], { LATCH_HOME: stack.home });
  }
});

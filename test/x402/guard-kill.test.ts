/**
 * kill -9 between authorize and bind (shared/spec/x402.md §3, §5): the daemon is a child process on
 * the real sandbox's enrolled data directory. An x402 authorization answered 201 is in
 * state.journal before the answer: after SIGKILL and a restart it is still `authorized`, its
 * reservation still counts against the budget, and its payload can still be bound; a bound one
 * stays bound and counted in full. Every state survives.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { createHash } from 'node:crypto';
import { addAgent, readAgentToken } from '../../src/datadir/agents.js';
import { readToken } from '../../src/datadir/token.js';
import { killAll, killHard, startDaemonChild, type Child } from '../adversarial/child-process.js';
import { JsonClient, startStack, type Stack } from '../support/stack.js';
import { BASE_SEPOLIA, BASE_SEPOLIA_USDC, PAY_TO } from '../support/x402-world.js';

let stack: Stack;
let child: Child;
let shopper: JsonClient;
let owner: JsonClient;

const requirements = (amount: string) => ({ scheme: 'exact', network: BASE_SEPOLIA, amount, asset: BASE_SEPOLIA_USDC, payTo: PAY_TO, maxTimeoutSeconds: 600, extra: { name: 'USDC', version: '2' } });
const ask = (url: string, amount = '10000') => shopper.post('/x402/authorize', { x402_version: 2, resource: { url }, requirements: requirements(amount) });

async function startDaemon(): Promise<void> {
  const started = await startDaemonChild(stack.home);
  child = started.child;
  const base = `http://127.0.0.1:${started.portA}`;
  shopper = new JsonClient(base, () => readAgentToken(stack.home, 'shopper'));
  owner = new JsonClient(base, () => readToken(stack.home));
}

before(async () => {
  stack = await startStack();
  await stack.daemon.close({ deadlineMs: 1_000 });
  // A budget for exactly one payment of 0.01 USD.
  writeFileSync(path.join(stack.home, 'policy.json'), JSON.stringify({ v: 1, default: 'allow', budgets: [{ id: 'one-cent', currencies: ['USD'], per: 'day', limit: '0.01', over: 'deny' }] }), { mode: 0o600 });
  addAgent(stack.home, 'shopper');
  await startDaemon();
});
after(async () => {
  await killAll();
  await stack.close();
});

test('kill -9 between authorize and bind keeps the authorization, its reservation and its binding', async () => {
  const authorized = await ask('https://api.example.com/one');
  assert.equal(authorized.status, 201, authorized.text);
  const id: string = authorized.body.authorization_id;
  assert.equal(authorized.body.status, 'authorized');

  await killHard(child);
  assert.equal(child.process.signalCode, 'SIGKILL');
  await startDaemon();

  const kept = await shopper.get(`/authorizations/${id}`);
  assert.equal(kept.status, 200, kept.text);
  assert.equal(kept.body.status, 'authorized');
  assert.equal(kept.body.receipt, authorized.body.receipt, 'the receipt answered is the one kept');
  const second = await ask('https://api.example.com/two');
  assert.equal(second.status, 403, 'the reservation still counts after SIGKILL');
  assert.equal(second.body.error.code, 'policy_denied');
  assert.equal(second.body.error.rule, 'one-cent');

  const payload = { x402Version: 2, accepted: requirements('10000'), payload: { signature: '0xabc' } };
  const bound = await shopper.post(`/x402/authorizations/${id}/payload`, { accepted: payload.accepted, payload_sha256: createHash('sha256').update(JSON.stringify(payload)).digest('hex') });
  assert.equal(bound.status, 200, bound.text);
  assert.equal(bound.body.status, 'bound');

  await killHard(child);
  await startDaemon();
  const stillBound = await owner.get(`/authorizations/${id}`);
  assert.equal(stillBound.body.status, 'bound', 'bound and never reported: counted in full after SIGKILL');
  assert.equal((await ask('https://api.example.com/three')).status, 403);
  const settled = await shopper.post(`/x402/authorizations/${id}/settlement`, { settle_response: { success: true, transaction: '0xfeed', network: BASE_SEPOLIA } });
  assert.equal(settled.status, 200, settled.text);
  assert.equal(settled.body.status, 'settled');

  await killHard(child);
  await startDaemon();
  const stillSettled = await owner.get(`/authorizations/${id}`);
  assert.equal(stillSettled.body.status, 'settled');
  assert.equal(stillSettled.body.settled_amount, '0.01');
  const audit = readFileSync(path.join(stack.home, 'audit.log'), 'utf8').split('\n').filter((line) => line.includes(id)).map((line) => (JSON.parse(line) as { operation: string }).operation);
  assert.deepEqual(audit, ['x402_authorized', 'x402_bound', 'x402_settled']);
});

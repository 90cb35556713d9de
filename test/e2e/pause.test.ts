/**
 * The owner's emergency brake against the real daemon and sandbox: while paused nothing that
 * authorizes spending or moves money is signed, on either listener or through the proxy, for
 * anyone; reads, /health and revocations keep working; resume restores signing; the brake holds
 * across a restart because it is a file.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { startStack, runLatch, type Stack } from '../support/stack.js';

let stack: Stack;
let card: string;
before(async () => {
  stack = await startStack();
  card = stack.cards[0].card_id;
});
after(() => stack.close());

const env = () => ({ LATCH_HOME: stack.home, LATCH_URL: `http://127.0.0.1:${stack.portA}` });
/** The audit lines other than refusals (issue 44 item 3: a refusal by the pause is a line of its own, and signs nothing). */
const auditLines = () => readFileSync(path.join(stack.home, 'audit.log'), 'utf8').trim().split('\n').filter((line) => !/"operation":"(refused|refusals_counted)"/.test(line)).length;

test('paused: every signing surface answers 409 daemon_paused and signs nothing; reads, health and revocation work; resume restores it', async () => {
  const before = await stack.a.post('/authorize', { card_id: card, amount: '5.00', merchant_name: 'shop.example.com' });
  assert.equal(before.status, 200, before.text);
  const policyId = before.body.policy_id as string;

  const paused = await runLatch(['pause', '--reason', 'lost laptop'], env());
  assert.equal(paused.code, 0, paused.stderr);
  assert.match(paused.stdout, /Signing is paused \(since \S+\)/);

  const health = await stack.a.get('/health');
  assert.deepEqual(Object.keys(health.body.paused), ['since'], 'the public /health shows no reason');
  assert.ok(!health.text.includes('lost laptop'), 'the owner’s note is not public');
  assert.match(health.body.paused.since, /^\d{4}-\d\d-\d\dT/);
  const bHealth = await stack.b.get('/health');
  assert.deepEqual(Object.keys(bHealth.body).sort(), ['status', 'uptime_seconds', 'version'], 'B keeps its exact shape');

  const lines = auditLines();
  const refused: Array<[string, Promise<{ status: number; body: any }>]> = [
    ['A /authorize', stack.a.post('/authorize', { card_id: card, amount: '5.00', merchant_name: 'shop.example.com' })],
    ['A /merchant-bind', stack.a.post('/merchant-bind', { card_id: card, merchant_name: 'shop.example.com' })],
    ['A /recurring', stack.a.post('/recurring', { card_id: card, amount: '5.00', merchant_name: 'shop.example.com', interval: 'month' })],
    ['A /sign-card-policy-window', stack.a.post('/sign-card-policy-window', { card_id: card, amount: '5.00', merchant_name: 'shop.example.com' })],
    ['A /sign-policy-window', stack.a.post('/sign-policy-window', { amount: '5.00', merchant_name: 'shop.example.com' })],
    ['A /wallet/allocate', stack.a.post('/wallet/allocate', { card_id: card, amount: '1.00' })],
    ['B /authorize', stack.b.post('/authorize', { card_id: card, amount: 5, merchant: 'shop.example.com' })],
    ['B /wallet/allocate', stack.b.post('/wallet/allocate', { card_id: card, amount: 1 })],
    ['proxy POST /v1/wallet/allocate', stack.a.post('/v1/wallet/allocate', { card_id: card, amount: '1.00' })],
  ];
  for (const [name, answer] of refused) {
    const { status, body } = await answer;
    assert.deepEqual([status, body.error?.code], [409, 'daemon_paused'], name);
    assert.match(body.error.message, /paused signing at .*\(lost laptop\).*latch resume/, name);
  }
  assert.equal(auditLines(), lines, 'nothing was signed while paused');

  // Reads and revocations keep working.
  assert.equal((await stack.a.get('/cards')).status, 200);
  assert.equal((await stack.a.get('/v1/wallet')).status, 200);
  const revocation = await stack.a.post('/sign-revocation', { policy_id: policyId });
  assert.equal(revocation.status, 200, revocation.text);
  const revoked = await stack.a.post(`/v1/authorizations/${policyId}/revoke`, { jws: revocation.body.jws });
  assert.equal(revoked.status, 200, revoked.text);
  assert.equal(revoked.body.status, 'revoked');

  const status = await runLatch(['status'], env());
  // latch status reads the public /health: that signing is paused, not the owner's note.
  assert.match(status.stdout, /signing:\s+PAUSED since \S+: nothing is signed until latch resume/);

  const resumed = await runLatch(['resume'], env());
  assert.equal(resumed.code, 0);
  assert.match(resumed.stdout, /^Signing resumed\.$/m);
  assert.equal((await stack.a.get('/health')).body.paused, null);
  const after = await stack.a.post('/authorize', { card_id: card, amount: '5.00', merchant_name: 'shop.example.com' });
  assert.equal(after.status, 200, after.text);
  assert.match((await runLatch(['resume'], env())).stdout, /Signing was not paused/);
});

test('the brake holds across a daemon restart, and an unsafe brake file fails closed', async () => {
  await runLatch(['pause'], env());
  await stack.daemon.close();
  const { createDaemon } = await import('../../src/daemon/create-daemon.js');
  const daemon = createDaemon({ home: stack.home, portA: stack.portA, portB: stack.portB, env: { LATCH_HOME: stack.home }, logStream: { write: () => true } as unknown as NodeJS.WritableStream });
  await daemon.listen();
  after(() => daemon.close());
  const refused = await stack.a.post('/authorize', { card_id: card, amount: '5.00', merchant_name: 'shop.example.com' });
  assert.deepEqual([refused.status, refused.body.error.code], [409, 'daemon_paused']);
  const { chmodSync } = await import('node:fs');
  chmodSync(path.join(stack.home, 'paused'), 0o644);
  const unsafe = await stack.a.post('/authorize', { card_id: card, amount: '5.00', merchant_name: 'shop.example.com' });
  assert.deepEqual([unsafe.status, unsafe.body.error.code], [503, 'data_directory_unavailable']);
  chmodSync(path.join(stack.home, 'paused'), 0o600);
  await runLatch(['resume'], env());
  assert.equal((await stack.a.post('/authorize', { card_id: card, amount: '5.00', merchant_name: 'shop.example.com' })).status, 200);
});

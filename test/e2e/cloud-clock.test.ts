/**
 * The device signs windows in the cloud's time. Moving the sandbox clock past the default TTL
 * (the README's expiry example) used to break every later default authorization for good; now
 * the daemon learns the cloud's clock from its answers and keeps working, /health shows the skew,
 * and the sandbox clock can be reset.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { decodeJwsPayload } from '../support/e2e-assert.js';
import { runLatch, startStack, type Stack } from '../support/stack.js';

let stack: Stack;
let card: string;
before(async () => {
  stack = await startStack();
  card = stack.cards[0].card_id;
});
after(() => stack.close());

test('after the sandbox clock moves 1900 s ahead, default authorizations still work and charges match', async () => {
  const first = await stack.a.post('/authorize', { card_id: card, amount: '1.00', merchant_name: 'old.example.com' });
  assert.equal(first.status, 200);
  const moved = await stack.admin.post('/v1/sandbox/clock', { advance_seconds: 1900 });
  assert.equal(moved.status, 200);
  const expired = await stack.charge(card, 'old.example.com', '1.00');
  assert.equal(expired.body.decline_code, 'authorization_expired', 'the README example still shows an expiry');

  // The first call after the move may still sign in the old time if the daemon has not heard
  // the cloud since; any answer teaches it. A read is enough.
  assert.equal((await stack.a.get('/cards')).status, 200);
  const health = await stack.a.get('/health');
  assert.ok(Math.abs((health.body.cloud_clock_skew_seconds as number) - 1900) <= 2, JSON.stringify(health.body));

  const after = await stack.a.post('/authorize', { card_id: card, amount: '2.00', merchant_name: 'shop.example.com' });
  assert.equal(after.status, 200, after.text);
  const detail = await stack.a.get(`/transactions/${after.body.transaction_id}`);
  const payload = decodeJwsPayload(detail.body.policy_window.jws as string);
  const ledgerNow = Date.now() / 1000 + 1900;
  assert.ok(Math.abs((payload['not_before'] as number) - ledgerNow) <= 5, 'the window starts at the cloud\'s now');
  const charged = await stack.charge(card, 'shop.example.com', '2.00');
  assert.equal(charged.body.decision, 'approved', JSON.stringify(charged.body));

  const doctor = await runLatch(['doctor'], { LATCH_HOME: stack.home, LATCH_URL: `http://127.0.0.1:${stack.portA}` });
  assert.equal(doctor.code, 0, doctor.stderr);
  assert.match(doctor.stdout, /its clock is 19\d\d s ahead of this device's \(windows are signed in the cloud's time\)/);

  const reset = await stack.admin.post('/v1/sandbox/clock', { offset_seconds: 0 });
  assert.equal(reset.status, 200);
  await stack.a.get('/cards');
  assert.ok(Math.abs((await stack.a.get('/health')).body.cloud_clock_skew_seconds as number) <= 2);
  const again = await stack.a.post('/authorize', { card_id: card, amount: '1.00', merchant_name: 'shop.example.com' });
  assert.equal(again.status, 200, again.text);
  assert.equal((await stack.charge(card, 'shop.example.com', '1.00')).body.decision, 'approved');
});

test('the first authorization after the cloud clock jumps, with no answer in between, is clock_skew naming both clocks, never a field error; the next one works', async () => {
  // Forward (a laptop waking from sleep), then back: each time the daemon still signs in the time it last heard.
  for (const [move, label] of [[{ advance_seconds: 7200 }, 'forward'], [{ offset_seconds: 0 }, 'back']] as const) {
    assert.equal((await stack.admin.post('/v1/sandbox/clock', move)).status, 200, label);
    const first = await stack.a.post('/authorize', { card_id: card, amount: '1.00', merchant_name: `jump-${label}.example.com` });
    assert.equal(first.status, 502, `${label}: ${first.text}`);
    assert.equal(first.body.error.code, 'clock_skew', label);
    assert.equal(first.body.error.param, undefined, `${label}: no field the caller did not send`);
    assert.match(first.body.error.message, /the cloud's clock reads \d{4}-\d\d-\d\dT[\d:]+Z, this device's \d{4}-\d\d-\d\dT[\d:]+Z/, label);
    assert.match(first.body.error.message, /set this device's clock right/, `${label}: the way out if it comes back`);
    assert.match(first.body.error.remedy, /clock right/, label);
    const next = await stack.a.post('/authorize', { card_id: card, amount: '1.00', merchant_name: `jump-${label}.example.com` });
    assert.equal(next.status, 200, `${label}: the daemon learned the clock from the refusal: ${next.text}`);
    assert.equal((await stack.charge(card, `jump-${label}.example.com`, '1.00')).body.decision, 'approved', label);
  }
});

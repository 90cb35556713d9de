/**
 * Incoming charges (the sandbox's card network) against authorizations made through Variant A:
 * the cloud approves only what a signed window allows (decisions §5) and records every decision.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertError } from '../support/e2e-assert.js';
import { startStack, type Stack } from '../support/stack.js';

async function authorize(stack: Stack, fields: Record<string, unknown>): Promise<Record<string, any>> {
  const answer = await stack.a.post('/authorize', { merchant_name: 'shop.example.com', ...fields });
  assert.equal(answer.status, 200, answer.text);
  return answer.body;
}

async function expectDecision(stack: Stack, cardId: string, merchant: string, amount: string, decision: 'approved' | 'declined', declineCode?: string): Promise<Record<string, any>> {
  const answer = await stack.charge(cardId, merchant, amount);
  assert.equal(answer.status, 200, answer.text);
  assert.equal(answer.body.decision, decision, answer.text);
  assert.equal(answer.body.decline_code, declineCode, answer.text);
  assert.equal(answer.body.transaction.status, decision === 'approved' ? 'settled' : 'declined');
  assert.equal(answer.body.transaction.amount, amount);
  return answer.body.transaction;
}

async function advanceClock(stack: Stack, seconds: number): Promise<void> {
  const answer = await stack.admin.post('/v1/sandbox/clock', { advance_seconds: seconds });
  assert.equal(answer.status, 200, answer.text);
}

async function transaction(stack: Stack, id: string): Promise<Record<string, any>> {
  const answer = await stack.a.get(`/transactions/${id}`);
  assert.equal(answer.status, 200, answer.text);
  return answer.body;
}

/** moneyPlus adds cents to a two-decimal string. */
function moneyPlus(text: string, cents: number): string {
  const total = Number(text.replace('.', '')) + cents;
  return `${Math.floor(total / 100)}.${String(total % 100).padStart(2, '0')}`;
}

function held(stack: Stack, cardId: string): number | undefined {
  return stack.sandbox.state().cards.get(cardId)?.held;
}

describe('one-time authorizations', () => {
  let stack: Stack;
  let groceries: string;
  let subscriptions: string;
  before(async () => {
    stack = await startStack();
    groceries = stack.cards[0].card_id;
    subscriptions = stack.cards[1].card_id;
  });
  after(() => stack.close());

  test('a card with no window: declined card_frozen', async () => {
    await expectDecision(stack, groceries, 'shop.example.com', '1.00', 'declined', 'card_frozen');
  });

  test('the exact amount at the right merchant inside the window: approved, and the window is used', async () => {
    const created = await authorize(stack, { card_id: groceries, amount: 12.5, merchant_name: 'Shop.Example.com' });
    const settled = await expectDecision(stack, groceries, 'shop.example.com', '12.50', 'approved');
    assert.equal(settled.id, created.transaction_id, 'the authorization transaction becomes the settlement');
    assert.equal(settled.policy_id, created.policy_id);
    const read = await transaction(stack, created.transaction_id);
    assert.equal(read.status, 'settled');
    assert.equal(read.policy_window.policy_id, created.policy_id);
    const card = await stack.a.get(`/cards/${groceries}`);
    assert.equal(card.body.balance, '87.50');
    assert.equal(card.body.daily_spent, '12.50');
    assert.equal(card.body.status, 'frozen', 'no active window left');
    assert.equal(held(stack, groceries), 0);
  });

  test('a second charge on a used window: declined', async () => {
    await expectDecision(stack, groceries, 'shop.example.com', '12.50', 'declined', 'card_frozen');
    assert.equal((await stack.a.get(`/cards/${groceries}`)).body.balance, '87.50');
  });

  test('another merchant (a parent or sibling domain too): scope_mismatch; the window survives declines', async () => {
    const created = await authorize(stack, { card_id: subscriptions, amount: '5.00', merchant_name: 'shop.example.com' });
    for (const merchant of ['evil.example.com', 'example.com', 'www.shop.example.com', 'shop.example.co']) {
      await expectDecision(stack, subscriptions, merchant, '5.00', 'declined', 'scope_mismatch');
    }
    const settled = await expectDecision(stack, subscriptions, 'SHOP.example.com.', '5.00', 'approved');
    assert.equal(settled.id, created.transaction_id);
  });

  test('an internationalized merchant matches in either spelling (IDNA), and only exactly', async () => {
    const created = await authorize(stack, { card_id: subscriptions, amount: '2.50', merchant_name: 'Bücher.example' });
    assert.equal(created.merchant_name, 'xn--bcher-kva.example');
    await expectDecision(stack, subscriptions, 'bucher.example', '2.50', 'declined', 'scope_mismatch');
    await expectDecision(stack, subscriptions, 'bücher.example', '2.50', 'approved');
  });

  test('exact: a cent more or less is scope_mismatch', async () => {
    await authorize(stack, { card_id: subscriptions, amount: '10.00' });
    await expectDecision(stack, subscriptions, 'shop.example.com', '10.01', 'declined', 'scope_mismatch');
    await expectDecision(stack, subscriptions, 'shop.example.com', '9.99', 'declined', 'scope_mismatch');
    await expectDecision(stack, subscriptions, 'shop.example.com', '10.00', 'approved');
  });

  test('ceiling: above is scope_mismatch; below settles at the charged amount and releases the rest of the hold', async () => {
    const walletBefore = (await stack.a.get('/wallet/balance')).body;
    const balanceBefore = (await stack.a.get(`/cards/${groceries}`)).body.balance;
    assert.equal(balanceBefore, '87.50');
    const created = await authorize(stack, { card_id: groceries, amount: '40.00', authorization_type: 'ceiling' });
    assert.equal(held(stack, groceries), 4000);
    await expectDecision(stack, groceries, 'shop.example.com', '40.01', 'declined', 'scope_mismatch');
    const settled = await expectDecision(stack, groceries, 'shop.example.com', '25.00', 'approved');
    assert.equal(settled.id, created.transaction_id);
    assert.equal((await transaction(stack, settled.id)).amount, '25.00');
    assert.equal(held(stack, groceries), 0, 'the 15.00 left of the hold is released');
    assert.equal((await stack.a.get(`/cards/${groceries}`)).body.balance, '62.50');
    // The charged 25.00 leaves the account: the wallet total and its allocated part shrink by it.
    assert.deepEqual((await stack.a.get('/wallet/balance')).body, {
      usdt: moneyPlus(walletBefore.usdt, -2500),
      allocated: moneyPlus(walletBefore.allocated, -2500),
      available: walletBefore.available,
    });
    // All of the remaining balance can be authorized again: nothing of the old hold lingers.
    await authorize(stack, { card_id: groceries, amount: '62.50', merchant_name: 'rest.example.com' });
  });

  test('after revocation (signed on A, submitted through the /v1 proxy): declined, hold released', async () => {
    const created = await authorize(stack, { card_id: subscriptions, amount: '3.00', merchant_name: 'revoked.example.com' });
    assert.equal(held(stack, subscriptions), 300);
    const signed = await stack.a.post('/sign-revocation', { policy_id: created.policy_id, reason: 'user cancelled' });
    assert.equal(signed.status, 200, signed.text);
    const revoked = await stack.a.post(`/v1/authorizations/${created.policy_id}/revoke`, { jws: signed.body.jws });
    assert.equal(revoked.status, 200, revoked.text);
    assert.equal(revoked.body.status, 'revoked');
    assert.equal(held(stack, subscriptions), 0);
    // No active window is left on the card, so the cloud answers as for a frozen card.
    await expectDecision(stack, subscriptions, 'revoked.example.com', '3.00', 'declined', 'card_frozen');
    assert.equal((await transaction(stack, created.transaction_id)).status, 'revoked');
    // Revoking twice is refused by the cloud, and the proxy passes its answer back unchanged.
    const again = await stack.a.post('/sign-revocation', { policy_id: created.policy_id });
    const twice = await stack.a.post(`/v1/authorizations/${created.policy_id}/revoke`, { jws: again.body.jws });
    assertError(twice, 409, 'authorization_not_active');
  });

  test('an account-wide window (signed on A, submitted through the proxy) pays on any card of the account', async () => {
    const signed = await stack.a.post('/sign-policy-window', { amount: '4.00', merchant_name: 'any-card.example.com', authorization_type: 'ceiling' });
    assert.equal(signed.status, 200, signed.text);
    const registered = await stack.a.post('/v1/policy-windows', { jws: signed.body.jws });
    assert.equal(registered.status, 201, registered.text);
    assert.equal(registered.body.policy_id, signed.body.policy_window.policy_id);
    assert.equal(registered.body.card_id, null);
    await expectDecision(stack, subscriptions, 'any-card.example.com', '4.01', 'declined', 'scope_mismatch');
    await expectDecision(stack, subscriptions, 'any-card.example.com', '3.00', 'approved');
    // One-time: used by that charge, on whichever card it came.
    await expectDecision(stack, groceries, 'any-card.example.com', '1.00', 'declined', 'scope_mismatch');
    // A card window cannot be registered as account-wide, nor the other way round: the daemon
    // holds each for its own route (owner-presence §3), and the cloud would refuse it too.
    const cardWindow = await stack.a.post('/sign-card-policy-window', { card_id: groceries, amount: 1, merchant_name: 'x.example.com' });
    assertError(await stack.a.post('/v1/policy-windows', { jws: cardWindow.body.jws }), 403, 'proxy_route_not_allowed');
    const accountWindow = await stack.a.post('/sign-policy-window', { amount: 1, merchant_name: 'x.example.com' });
    assertError(await stack.a.post('/v1/authorizations', { jws: accountWindow.body.jws }), 403, 'proxy_route_not_allowed');
  });

  test('a signed window is registered once: re-submitting the same JWS is refused', async () => {
    const signed = await stack.a.post('/sign-card-policy-window', { card_id: subscriptions, amount: 1, merchant_name: 'once.example.com' });
    const first = await stack.a.post('/v1/authorizations', { jws: signed.body.jws });
    assert.equal(first.status, 201, first.text);
    // The daemon forwards a held window once (owner-presence §3); the cloud would refuse it too.
    assertError(await stack.a.post('/v1/authorizations', { jws: signed.body.jws }), 403, 'proxy_route_not_allowed');
  });

  test('declines are transactions with their decline_code', async () => {
    const declined = await stack.a.get('/transactions?status=declined&limit=100');
    assert.equal(declined.status, 200);
    const codes = declined.body.transactions.map((t: { decline_code: string }) => t.decline_code);
    assert.ok(codes.includes('card_frozen') && codes.includes('scope_mismatch'), codes.join());
    for (const t of declined.body.transactions) assert.equal(t.status, 'declined');
  });
});

describe('expiry and merchant verification', () => {
  let stack: Stack;
  let groceries: string;
  let subscriptions: string;
  before(async () => {
    stack = await startStack();
    groceries = stack.cards[0].card_id;
    subscriptions = stack.cards[1].card_id;
  });
  after(() => stack.close());

  test('after the window ends on the cloud clock: declined authorization_expired; the hold is released', async () => {
    const created = await authorize(stack, { card_id: groceries, amount: '7.00', ttl_minutes: 1 });
    await advanceClock(stack, 61);
    await expectDecision(stack, groceries, 'shop.example.com', '7.00', 'declined', 'authorization_expired');
    assert.equal((await transaction(stack, created.transaction_id)).status, 'expired');
    assert.equal(held(stack, groceries), 0);
  });

  test('merchant verification: within the amount approved, above it declined; over 1.00 refused at the daemon', async () => {
    const zero = await stack.a.post('/merchant-bind', { card_id: subscriptions, merchant_name: 'verify.example.com' });
    assert.equal(zero.status, 200, zero.text);
    await expectDecision(stack, subscriptions, 'verify.example.com', '0.01', 'declined', 'scope_mismatch');
    await expectDecision(stack, subscriptions, 'verify.example.com', '0.00', 'approved');
    const one = await stack.a.post('/merchant-bind', { card_id: subscriptions, merchant_name: 'verify2.example.com', amount: '1.00' });
    assert.equal(one.status, 200, one.text);
    await expectDecision(stack, subscriptions, 'verify2.example.com', '1.01', 'declined', 'scope_mismatch');
    await expectDecision(stack, subscriptions, 'verify2.example.com', '0.50', 'approved');
    assertError(await stack.a.post('/merchant-bind', { card_id: subscriptions, merchant_name: 'verify.example.com', amount: '1.01' }), 400, 'invalid_request', 'amount');
  });

  test('the fourth verification on a card within 24 h: 429 verification_cap_exceeded, per card', async () => {
    const third = await stack.a.post('/merchant-bind', { card_id: subscriptions, merchant_name: 'verify3.example.com' });
    assert.equal(third.status, 200, third.text);
    assertError(await stack.a.post('/merchant-bind', { card_id: subscriptions, merchant_name: 'verify4.example.com' }), 429, 'verification_cap_exceeded');
    // The cap is per card: the other card still has its three.
    assert.equal((await stack.a.post('/merchant-bind', { card_id: groceries, merchant_name: 'verify4.example.com' })).status, 200);
    // (That the slot frees after 24 h is a sandbox ledger test: moving the cloud clock a day would
    // put every window the daemon signs on the real clock in the cloud's past.)
  });
});

describe('recurring authorizations', () => {
  let stack: Stack;
  let subscriptions: string;
  before(async () => {
    stack = await startStack();
    subscriptions = stack.cards[1].card_id;
  });
  after(() => stack.close());

  test('one approved charge per period; max_charges ends the schedule', async () => {
    const created = await stack.a.post('/recurring', { card_id: subscriptions, merchant_name: 'daily.example.com', amount: '2.00', interval: 'day', max_charges: 2 });
    assert.equal(created.status, 200, created.text);
    assert.equal(held(stack, subscriptions), 0, 'a recurring window holds nothing');
    await expectDecision(stack, subscriptions, 'daily.example.com', '2.00', 'approved');
    await expectDecision(stack, subscriptions, 'daily.example.com', '2.00', 'declined', 'scope_mismatch');
    await expectDecision(stack, subscriptions, 'daily.example.com', '2.01', 'declined', 'scope_mismatch');
    await advanceClock(stack, 86_400);
    await expectDecision(stack, subscriptions, 'daily.example.com', '1.50', 'approved');
    await advanceClock(stack, 86_400);
    await expectDecision(stack, subscriptions, 'daily.example.com', '2.00', 'declined', 'card_frozen');
    const policy = await stack.a.get(`/v1/authorizations/${created.body.policy_id}`);
    assert.equal(policy.status, 200, policy.text);
    assert.equal(policy.body.status, 'used');
  });

  test('monthly: the same period declines, the next month approves', async () => {
    const created = await stack.a.post('/recurring', { card_id: subscriptions, merchant_name: 'stream.example.com', amount: '9.99', interval: 'month' });
    assert.equal(created.status, 200, created.text);
    await expectDecision(stack, subscriptions, 'stream.example.com', '9.99', 'approved');
    await advanceClock(stack, 20 * 86_400);
    await expectDecision(stack, subscriptions, 'stream.example.com', '9.99', 'declined', 'scope_mismatch');
    await advanceClock(stack, 12 * 86_400);
    await expectDecision(stack, subscriptions, 'stream.example.com', '9.99', 'approved');
    const settled = await stack.a.get(`/transactions?card_id=${subscriptions}&status=settled`);
    assert.equal(settled.body.transactions.filter((t: { merchant: string }) => t.merchant === 'stream.example.com').length, 2);
  });
});

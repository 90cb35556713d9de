/**
 * One core behind two listeners (decisions §2): an authorization made through Variant B is the
 * same object Variant A shows (policy_id, transaction, signed window), and the reverse; a charge
 * matching a B authorization is approved; B's windows are signed, audited and revocable exactly
 * like A's. Only names, money type and ttl syntax differ at the edge.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { fromBase64Url } from '../../src/crypto/base64url.js';
import { verifyJwsCompact } from '../../src/verify/jws-verify.js';
import { readAudit } from '../../src/verify/audit-read.js';
import { runLatch, startStack, type Stack } from '../support/stack.js';
import { assertMoney, authorizeB, newCard } from './variant-b-fixture.js';

/** minorOfA reads A's decimal string ("12.50") as integer cents, so A and B compare exactly. */
function minorOfA(text: string): number {
  assert.match(text, /^\d+\.\d{2}$/);
  return Number(text.replace('.', ''));
}

/** minorOfB reads B's JSON number (12.5) as integer cents. */
function minorOfB(value: unknown): number {
  assert.equal(typeof value, 'number');
  return Math.round((value as number) * 100);
}

describe('Variant B and Variant A: one core', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.close());

  test("an authorization made through B is the same object through A: the transaction, A's window and the cloud's authorization", async () => {
    const cardId = await newCard(stack, 'B to A', '100.00');
    const created = await stack.b.post('/authorize', { card_id: cardId, amount: 12.5, merchant: 'both.example.com', ttl: '45m' });
    assert.equal(created.status, 200, created.text);
    const txId: string = created.body.tx_id;

    const throughB = (await stack.b.get(`/transactions/${txId}`)).body;
    const throughA = await stack.a.get(`/transactions/${txId}`);
    assert.equal(throughA.status, 200, throughA.text);
    const policyId: string = throughB.policy_window.policy_id;

    // The transaction: same id, merchant, status and amount (A "12.50", B 12.5).
    assert.equal(throughA.body.id, txId);
    assert.equal(throughA.body.card_id, cardId);
    assert.equal(throughA.body.merchant, throughB.merchant);
    assert.equal(throughA.body.status, 'authorized');
    assert.equal(throughA.body.amount, '12.50');
    assert.equal(minorOfA(throughA.body.amount), minorOfB(throughB.amount));
    assert.equal(throughA.body.policy_id, policyId);

    // The window: field for field the same, money differing only in type.
    const windowA = throughA.body.policy_window;
    const windowB = throughB.policy_window;
    for (const field of ['policy_id', 'card_id', 'merchant', 'currency', 'authorization_type', 'not_before', 'not_after', 'key_id', 'jws']) {
      assert.equal(windowA[field], windowB[field], `policy_window.${field}`);
    }
    assert.equal(minorOfA(windowA.amount), minorOfB(windowB.amount));

    // The cloud's authorization, through A's /v1 proxy: the list and the single read.
    const list = await stack.a.get('/v1/authorizations?limit=100');
    assert.equal(list.status, 200, list.text);
    const listed = list.body.authorizations.find((a: { policy_id: string }) => a.policy_id === policyId);
    assert.ok(listed, "A's /v1/authorizations lists the authorization made through B");
    assert.equal(listed.transaction_id, txId);
    assert.equal(listed.card_id, cardId);
    assert.equal(listed.merchant_name, 'both.example.com');
    assert.equal(listed.amount, '12.50');
    assert.equal(listed.kind, 'one_time');
    assert.equal(listed.authorization_type, 'exact');
    assert.equal(listed.status, 'active');
    assert.equal(listed.expires_at, windowB.not_after);
    assert.equal((Date.parse(listed.expires_at) - Date.parse(windowB.not_before)) / 1000, 45 * 60);
    const single = await stack.a.get(`/v1/authorizations/${policyId}`);
    assert.deepEqual(single.body, listed);
    // B's signed_at is when the window was signed, which is when it starts.
    assert.equal(created.body.signed_at, windowB.not_before);
  });

  test("B's window is a JWS that verifies with the key A's /health reports, with the documented payload", async () => {
    const cardId = await newCard(stack, 'JWS', '100.00');
    const txId = await authorizeB(stack, { card_id: cardId, amount: '3.10', merchant: 'jws.example.com', ttl: '90s' });
    const window = (await stack.b.get(`/transactions/${txId}`)).body.policy_window;
    const health = (await stack.a.get('/health')).body;
    assert.equal(window.key_id, health.signing_key.key_id);
    const publicKey = fromBase64Url(health.signing_key.public_key);
    assert.ok(publicKey !== undefined);
    const verified = verifyJwsCompact(window.jws, publicKey);
    assert.ok(typeof verified !== 'string', `the JWS must verify: ${String(verified)}`);
    assert.equal(verified.header['alg'], 'EdDSA');
    assert.equal(verified.kid, health.signing_key.key_id);
    const payload = verified.payload;
    assert.equal(payload['typ'], 'card_policy_window');
    assert.equal(payload['policy_id'], window.policy_id);
    assert.equal(payload['card_id'], cardId);
    assert.equal(payload['merchant'], 'jws.example.com');
    assert.equal(payload['amount'], '3.10', 'the signed amount is decimal text whichever variant was asked');
    assert.equal(payload['currency'], 'USD');
    assert.equal(payload['kind'], 'one_time');
    assert.equal((payload['not_after'] as number) - (payload['not_before'] as number), 90);
    // A tampered signature does not verify. The changed character sits in the middle of the
    // signature segment, where every base64url character is canonical (the last one may not be).
    const at = window.jws.lastIndexOf('.') + 10;
    const tampered = window.jws.slice(0, at) + (window.jws[at] === 'A' ? 'B' : 'A') + window.jws.slice(at + 1);
    assert.equal(verifyJwsCompact(tampered, publicKey), 'bad_signature');
  });

  test("the reverse: an authorization made through A is B's transaction, with the same id, amount, merchant and window", async () => {
    const cardId = await newCard(stack, 'A to B', '100.00');
    const created = await stack.a.post('/authorize', { card_id: cardId, amount: '7.25', merchant_name: 'reverse.example.com' });
    assert.equal(created.status, 200, created.text);
    const txId: string = created.body.transaction_id;

    const throughB = await stack.b.get(`/transactions/${txId}`);
    assert.equal(throughB.status, 200, throughB.text);
    assert.equal(throughB.body.id, txId);
    assertMoney(throughB.body.amount, 7.25, 'amount on B');
    assert.equal(throughB.body.merchant, created.body.merchant_name);
    assert.equal(throughB.body.status, 'authorized');
    assert.equal(throughB.body.policy_window.policy_id, created.body.policy_id);
    assert.equal(throughB.body.policy_window.not_after, created.body.expires_at);

    const listedOnB = (await stack.b.get(`/transactions?card_id=${cardId}`)).body.transactions;
    assert.deepEqual(listedOnB, [{ id: txId, amount: 7.25, merchant: 'reverse.example.com', status: 'authorized' }]);
    assert.equal((await stack.b.get(`/cards/${cardId}`)).body.status, 'active', "A's authorization unfreezes the card as B sees it");
  });

  test('a charge matching a B authorization is approved; A then sees the authorization used and the transaction settled', async () => {
    const cardId = await newCard(stack, 'Charged', '100.00');
    const txId = await authorizeB(stack, { card_id: cardId, amount: 19.99, merchant: 'paid.example.com' });
    const policyId = (await stack.b.get(`/transactions/${txId}`)).body.policy_window.policy_id;
    const charged = await stack.charge(cardId, 'PAID.example.com.', '19.99');
    assert.equal(charged.body.decision, 'approved', charged.text);
    assert.equal(charged.body.transaction.id, txId);
    assert.equal((await stack.a.get(`/v1/authorizations/${policyId}`)).body.status, 'used');
    const throughA = (await stack.a.get(`/transactions/${txId}`)).body;
    assert.equal(throughA.status, 'settled');
    assert.equal(throughA.amount, '19.99');
    assert.equal((await stack.b.get(`/transactions/${txId}`)).body.status, 'settled');
  });

  test('a B authorization revoked through A (sign-revocation + /v1 revoke) is revoked on B: tx revoked, card frozen, charge declined', async () => {
    const cardId = await newCard(stack, 'Revoked', '100.00');
    const txId = await authorizeB(stack, { card_id: cardId, amount: 4, merchant: 'revoked.example.com' });
    const policyId = (await stack.b.get(`/transactions/${txId}`)).body.policy_window.policy_id;
    const signed = await stack.a.post('/sign-revocation', { policy_id: policyId, reason: 'user cancelled' });
    assert.equal(signed.status, 200, signed.text);
    const revoked = await stack.a.post(`/v1/authorizations/${policyId}/revoke`, { jws: signed.body.jws });
    assert.equal(revoked.status, 200, revoked.text);
    assert.equal(revoked.body.status, 'revoked');
    assert.equal((await stack.b.get(`/transactions/${txId}`)).body.status, 'revoked');
    assert.equal((await stack.b.get(`/cards/${cardId}`)).body.status, 'frozen');
    assert.equal((await stack.charge(cardId, 'revoked.example.com', '4.00')).body.decision, 'declined');
  });

  test("every B signature is in the audit log like A's, and the chain verifies", async () => {
    const cardId = await newCard(stack, 'Audited', '100.00');
    const txId = await authorizeB(stack, { card_id: cardId, amount: 2.5, merchant: 'audit.example.com' }, { 'user-agent': 'variant-b-client/1.0' });
    const policyId = (await stack.b.get(`/transactions/${txId}`)).body.policy_window.policy_id;
    const line = readAudit(stack.home).find((record) => record.policy_id === policyId);
    assert.ok(line, 'the B signature has an audit line');
    assert.equal(line.card_id, cardId);
    assert.equal(line.merchant, 'audit.example.com');
    assert.equal(line.amount, '2.50');
    assert.equal(line.currency, 'USD');
    assert.equal(line.user_agent, 'variant-b-client/1.0');
    const verified = await runLatch(['audit', 'verify'], { LATCH_HOME: stack.home });
    assert.equal(verified.code, 0, verified.stderr);
  });

  test('cards and wallet read the same through A and B, money differing only in type', async () => {
    const [cardsA, cardsB] = [(await stack.a.get('/cards')).body.cards, (await stack.b.get('/cards')).body.cards];
    assert.equal(cardsA.length, cardsB.length);
    for (const cardA of cardsA) {
      const cardB = cardsB.find((card: { id: string }) => card.id === cardA.card_id);
      assert.ok(cardB, `${cardA.card_id} on B`);
      assert.equal(cardB.label, cardA.label);
      assert.equal(cardB.status, cardA.status);
      assert.equal(minorOfB(cardB.balance), minorOfA(cardA.balance));
    }
    const [walletA, walletB] = [(await stack.a.get('/wallet/balance')).body, (await stack.b.get('/wallet/balance')).body];
    for (const field of ['usdt', 'allocated', 'available']) assert.equal(minorOfB(walletB[field]), minorOfA(walletA[field]), field);
  });
});

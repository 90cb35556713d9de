/**
 * Variant B's wire shapes, end to end: every response has exactly the keys of the spec's B
 * table (a field gained or lost fails here), and every money value is a JSON number.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { REPO_ROOT } from '../support/paths.js';
import { startStack, type Stack } from '../support/stack.js';
import { assertKeys, assertMoney, expectError, newCard } from './variant-b-fixture.js';

/** The exact key sets of Variant B (docs/api.md "Variant B"; docs/decisions.md §4 for policy_window). */
const B_SHAPES = {
  health: ['status', 'version', 'uptime_seconds'],
  cardList: ['cards'],
  cardSummary: ['id', 'label', 'status', 'balance'],
  cardDetail: ['id', 'label', 'status', 'balance', 'daily_limit'],
  authorize: ['tx_id', 'status', 'signed_at'],
  transactionList: ['transactions'],
  transactionSummary: ['id', 'amount', 'merchant', 'status'],
  transactionDetail: ['id', 'amount', 'merchant', 'status', 'policy_window'],
  policyWindow: ['policy_id', 'card_id', 'merchant', 'amount', 'currency', 'authorization_type', 'not_before', 'not_after', 'key_id', 'jws'],
  wallet: ['usdt', 'allocated', 'available'],
  allocation: ['card_id', 'allocated', 'new_balance'],
  error: ['error'],
} as const;

const ISO_SECONDS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

describe('Variant B: exact response shapes', () => {
  let stack: Stack;
  let cardId: string;
  let txId: string;
  let declinedTxId: string;

  before(async () => {
    stack = await startStack();
    // A card of its own, so the values below are known exactly.
    cardId = await newCard(stack, 'Shapes', '80.25', '300.00');
    const authorized = await stack.b.post('/authorize', { card_id: cardId, amount: 12.5, merchant: 'shapes.example.com' });
    assert.equal(authorized.status, 200, authorized.text);
    txId = authorized.body.tx_id;
    // A charge with no window behind it is declined and recorded without a policy window.
    const declined = await stack.charge(cardId, 'nowindow.example.com', '3.00');
    assert.equal(declined.body.decision, 'declined', declined.text);
    declinedTxId = declined.body.transaction.id;
  });
  after(() => stack.close());

  test('GET /health is exactly {status, version, uptime_seconds}: no signing_key, unlike A', async () => {
    const answer = await stack.b.get('/health');
    assert.equal(answer.status, 200);
    assertKeys(answer.body, B_SHAPES.health, '/health');
    assert.equal(answer.body.status, 'ok');
    const packageJson = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8'));
    assert.equal(answer.body.version, packageJson.version);
    assert.ok(Number.isInteger(answer.body.uptime_seconds) && answer.body.uptime_seconds >= 0);
  });

  test('GET /cards is {cards: [{id, label, status, balance}]}', async () => {
    const answer = await stack.b.get('/cards');
    assert.equal(answer.status, 200);
    assertKeys(answer.body, B_SHAPES.cardList, '/cards');
    assert.ok(answer.body.cards.length >= 3);
    for (const card of answer.body.cards) {
      assertKeys(card, B_SHAPES.cardSummary, 'a card in /cards');
      assert.match(card.id, /^card_/);
      assert.equal(typeof card.balance, 'number');
    }
    const mine = answer.body.cards.find((card: { id: string }) => card.id === cardId);
    assert.deepEqual(mine, { id: cardId, label: 'Shapes', status: 'active', balance: 80.25 });
  });

  test('GET /cards/:card_id is {id, label, status, balance, daily_limit} with JSON numbers', async () => {
    const answer = await stack.b.get(`/cards/${cardId}`);
    assert.equal(answer.status, 200);
    assertKeys(answer.body, B_SHAPES.cardDetail, '/cards/:card_id');
    assert.deepEqual(answer.body, { id: cardId, label: 'Shapes', status: 'active', balance: 80.25, daily_limit: 300 });
  });

  test('POST /authorize is {tx_id, status: "authorized", signed_at}', async () => {
    const answer = await stack.b.post('/authorize', { card_id: cardId, amount: '0.10', merchant: 'shapes2.example.com' });
    assert.equal(answer.status, 200, answer.text);
    assertKeys(answer.body, B_SHAPES.authorize, '/authorize');
    assert.match(answer.body.tx_id, /^tx_[a-z0-9]+$/);
    assert.equal(answer.body.status, 'authorized');
    assert.match(answer.body.signed_at, ISO_SECONDS);
  });

  test('GET /transactions is {transactions: [{id, amount, merchant, status}]}, declines included without decline_code', async () => {
    const answer = await stack.b.get('/transactions');
    assert.equal(answer.status, 200);
    assertKeys(answer.body, B_SHAPES.transactionList, '/transactions');
    for (const transaction of answer.body.transactions) {
      assertKeys(transaction, B_SHAPES.transactionSummary, 'a transaction in /transactions');
      assert.equal(typeof transaction.amount, 'number');
    }
    const mine = answer.body.transactions.find((transaction: { id: string }) => transaction.id === txId);
    assert.deepEqual(mine, { id: txId, amount: 12.5, merchant: 'shapes.example.com', status: 'authorized' });
    const declined = answer.body.transactions.find((transaction: { id: string }) => transaction.id === declinedTxId);
    assert.deepEqual(declined, { id: declinedTxId, amount: 3, merchant: 'nowindow.example.com', status: 'declined' });
  });

  test('GET /transactions/:tx_id is {id, amount, merchant, status, policy_window} and the window has its exact keys', async () => {
    const answer = await stack.b.get(`/transactions/${txId}`);
    assert.equal(answer.status, 200);
    assertKeys(answer.body, B_SHAPES.transactionDetail, '/transactions/:tx_id');
    assertMoney(answer.body.amount, 12.5, 'amount');
    const window = answer.body.policy_window;
    assertKeys(window, B_SHAPES.policyWindow, 'policy_window');
    assert.match(window.policy_id, /^pw_/);
    assert.equal(window.card_id, cardId);
    assert.equal(window.merchant, 'shapes.example.com');
    assertMoney(window.amount, 12.5, 'policy_window.amount');
    assert.equal(window.currency, 'USD');
    assert.equal(window.authorization_type, 'exact');
    assert.match(window.not_before, ISO_SECONDS);
    assert.match(window.not_after, ISO_SECONDS);
    assert.match(window.key_id, /^[A-Za-z0-9_-]{43}$/);
    assert.equal(window.jws.split('.').length, 3);
  });

  test('GET /transactions/:tx_id of a declined charge has policy_window null, and still exactly B keys', async () => {
    const answer = await stack.b.get(`/transactions/${declinedTxId}`);
    assert.equal(answer.status, 200);
    assertKeys(answer.body, B_SHAPES.transactionDetail, 'declined /transactions/:tx_id');
    assert.deepEqual(answer.body, { id: declinedTxId, amount: 3, merchant: 'nowindow.example.com', status: 'declined', policy_window: null });
  });

  test('GET /wallet/balance is {usdt, allocated, available} as JSON numbers', async () => {
    const answer = await stack.b.get('/wallet/balance');
    assert.equal(answer.status, 200);
    assertKeys(answer.body, B_SHAPES.wallet, '/wallet/balance');
    // startStack: 100.00 + 50.00 on cards, 250.00 deposited; this file's card adds 80.25.
    assert.deepEqual(answer.body, { usdt: 480.25, allocated: 230.25, available: 250 });
  });

  test('POST /wallet/allocate is {card_id, allocated, new_balance} as JSON numbers', async () => {
    const answer = await stack.b.post('/wallet/allocate', { card_id: cardId, amount: 0.5 });
    assert.equal(answer.status, 200, answer.text);
    assertKeys(answer.body, B_SHAPES.allocation, '/wallet/allocate');
    assert.deepEqual(answer.body, { card_id: cardId, allocated: 0.5, new_balance: 80.75 });
  });

  test('money is written as the shortest JSON number text: 12.5 not "12.50", 80.75, 249.5', async () => {
    const card = await stack.b.get(`/cards/${cardId}`);
    assert.match(card.text, /"balance":80\.75[,}]/);
    const transaction = await stack.b.get(`/transactions/${txId}`);
    assert.match(transaction.text, /^\{"id":"tx_[a-z0-9]+","amount":12\.5,/);
    assert.ok(!transaction.text.includes('"12.50"'), 'B must not write decimal strings');
    const wallet = await stack.b.get('/wallet/balance');
    assert.match(wallet.text, /"available":249\.5[,}]/);
  });

  test('errors on B are the common body {error: {code, message, remedy, request_id, param?}}', async () => {
    const notFound = await stack.b.get('/cards/card_doesnotexist');
    expectError(notFound, 404, 'card_not_found');
    assertKeys(notFound.body, B_SHAPES.error, 'error body');
    assertKeys(notFound.body.error, ['code', 'message', 'remedy', 'request_id'], 'error object');
    const invalid = await stack.b.post('/authorize', { card_id: cardId, amount: 1, merchant: 'shop.example.com', ttl: '30' });
    expectError(invalid, 400, 'invalid_request', 'ttl');
    assertKeys(invalid.body.error, ['code', 'message', 'remedy', 'param', 'request_id'], 'error object with param');
  });
});

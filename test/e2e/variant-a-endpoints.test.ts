/**
 * Every Variant A endpoint against the real daemon and the real sandbox: the exact shapes of
 * decisions §4 (money as decimal strings, ISO times), the defaults and bounds of §5 and §13.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertKeys, decodeJwsPayload, secondsOf, MONEY } from '../support/e2e-assert.js';
import { startStack, type Stack } from '../support/stack.js';

const AUTHORIZATION_KEYS = [
  'policy_id',
  'authorization_id',
  'card_id',
  'merchant_name',
  'amount',
  'currency',
  'authorization_type',
  'kind',
  'expires_at',
  'status',
  'created_at',
  'transaction_id',
];
const RECURRING_KEYS = [...AUTHORIZATION_KEYS, 'interval', 'interval_count', 'max_charges', 'current_period_start', 'current_period_end'];
const TRANSACTION_KEYS = ['id', 'card_id', 'amount', 'currency', 'merchant', 'status', 'created_at', 'policy_id'];
const POLICY_WINDOW_VIEW_KEYS = ['policy_id', 'card_id', 'merchant', 'amount', 'currency', 'authorization_type', 'not_before', 'not_after', 'key_id', 'jws'];
const WINDOW_PAYLOAD_KEYS = ['v', 'typ', 'policy_id', 'device_id', 'card_id', 'merchant', 'amount', 'currency', 'authorization_type', 'kind', 'not_before', 'not_after', 'nonce', 'iat'];

let stack: Stack;
let groceries: string;
let subscriptions: string;
before(async () => {
  stack = await startStack();
  groceries = stack.cards[0].card_id;
  subscriptions = stack.cards[1].card_id;
});
after(() => stack.close());

/** windowOf returns the signed window the cloud holds for an authorization, through GET /transactions/:id. */
async function windowOf(transactionId: string): Promise<Record<string, any>> {
  const answer = await stack.a.get(`/transactions/${transactionId}`);
  assert.equal(answer.status, 200, answer.text);
  return answer.body.policy_window;
}

function sandboxCard(cardId: string) {
  const card = stack.sandbox.state().cards.get(cardId);
  assert.ok(card !== undefined);
  return card;
}

describe('reads', () => {
  test('GET /health: status, version, uptime and the public signing key only', async () => {
    const answer = await stack.a.request('GET', '/health', undefined, { authorization: '' });
    assert.equal(answer.status, 200);
    assertKeys(answer.body, ['status', 'version', 'uptime_seconds', 'signing_key', 'paused', 'cloud_clock_skew_seconds', 'approvals_locked_seconds', 'owner_presence']);
    assert.equal(answer.body.owner_presence, 'none', 'no passphrase set: the token alone is the owner (owner-presence §1)');
    assert.equal(answer.body.status, 'ok');
    assert.match(answer.body.version, /^\d+\.\d+\.\d+/);
    assert.ok(Number.isSafeInteger(answer.body.uptime_seconds) && answer.body.uptime_seconds >= 0);
    assertKeys(answer.body.signing_key, ['key_id', 'algorithm', 'public_key']);
    assert.equal(answer.body.signing_key.algorithm, 'Ed25519');
    const device = [...stack.sandbox.state().devices.values()][0];
    assert.equal(answer.body.signing_key.key_id, device?.key_id);
    assert.equal(answer.body.signing_key.public_key, device?.public_key_x);
  });

  test('GET /cards: {cards} with card_id, label, last4, status, balance, available and held as decimal strings, currency', async () => {
    const answer = await stack.a.get('/cards');
    assert.equal(answer.status, 200, answer.text);
    assertKeys(answer.body, ['cards']);
    assert.deepEqual(answer.body.cards, [
      { card_id: groceries, label: 'Groceries', last4: sandboxCard(groceries).last4, status: 'frozen', balance: '100.00', available: '100.00', held: '0.00', currency: 'USD' },
      { card_id: subscriptions, label: 'Subscriptions', last4: sandboxCard(subscriptions).last4, status: 'frozen', balance: '50.00', available: '50.00', held: '0.00', currency: 'USD' },
    ]);
    for (const card of answer.body.cards) assert.match(card.last4, /^[0-9]{4}$/);
  });

  test('GET /cards/:card_id adds daily_limit and daily_spent', async () => {
    const answer = await stack.a.get(`/cards/${subscriptions}`);
    assert.equal(answer.status, 200, answer.text);
    assert.deepEqual(answer.body, {
      card_id: subscriptions,
      label: 'Subscriptions',
      last4: sandboxCard(subscriptions).last4,
      status: 'frozen',
      balance: '50.00',
      available: '50.00',
      held: '0.00',
      currency: 'USD',
      daily_limit: '500.00',
      daily_spent: '0.00',
    });
  });

  test('GET /wallet/balance and GET /v1/wallet (through the signing proxy) agree', async () => {
    const wallet = await stack.a.get('/wallet/balance');
    assert.equal(wallet.status, 200, wallet.text);
    assert.deepEqual(wallet.body, { usdt: '400.00', allocated: '150.00', available: '250.00' });
    const proxied = await stack.a.get('/v1/wallet');
    assert.equal(proxied.status, 200, proxied.text);
    assert.deepEqual(proxied.body, wallet.body);
  });
});

describe('POST /authorize', () => {
  test('defaults: USD, exact, 30 minutes; amount as a decimal string; the card becomes active', async () => {
    const answer = await stack.a.post('/authorize', { card_id: groceries, amount: 12.5, merchant_name: 'Shop.Example.COM.' });
    assert.equal(answer.status, 200, answer.text);
    const body = answer.body;
    assertKeys(body, AUTHORIZATION_KEYS, 'authorization');
    assert.match(body.policy_id, /^pw_[a-z0-9]+$/);
    assert.equal(body.authorization_id, body.policy_id);
    assert.equal(body.card_id, groceries);
    assert.equal(body.merchant_name, 'shop.example.com');
    assert.equal(body.amount, '12.50');
    assert.equal(body.currency, 'USD');
    assert.equal(body.authorization_type, 'exact');
    assert.equal(body.kind, 'one_time');
    assert.equal(body.status, 'active');
    assert.match(body.transaction_id, /^tx_[a-z0-9]+$/);
    const window = await windowOf(body.transaction_id);
    assertKeys(window, POLICY_WINDOW_VIEW_KEYS, 'policy_window');
    assert.equal(window.policy_id, body.policy_id);
    assert.equal(window.amount, '12.50');
    assert.equal(secondsOf(window.not_after) - secondsOf(window.not_before), 30 * 60);
    assert.equal(body.expires_at, window.not_after);
    secondsOf(body.created_at);
    const card = await stack.a.get(`/cards/${groceries}`);
    assert.equal(card.body.status, 'active');
  });

  const variations: Array<[string, Record<string, unknown>, { amount: string; type: string; ttlSeconds: number }]> = [
    ['amount as a decimal string', { amount: '7.5' }, { amount: '7.50', type: 'exact', ttlSeconds: 1800 }],
    ['a whole-number amount', { amount: 3 }, { amount: '3.00', type: 'exact', ttlSeconds: 1800 }],
    ['ceiling', { amount: '20.00', authorization_type: 'ceiling' }, { amount: '20.00', type: 'ceiling', ttlSeconds: 1800 }],
    ['ttl_minutes 1 (the minimum)', { amount: 1, ttl_minutes: 1 }, { amount: '1.00', type: 'exact', ttlSeconds: 60 }],
    ['ttl_minutes 1440 (the maximum)', { amount: 1, ttl_minutes: 1440 }, { amount: '1.00', type: 'exact', ttlSeconds: 86_400 }],
    ['currency USD given', { amount: '0.01', currency: 'USD' }, { amount: '0.01', type: 'exact', ttlSeconds: 1800 }],
  ];
  for (const [name, fields, expected] of variations) {
    test(`accepts ${name}`, async () => {
      const answer = await stack.a.post('/authorize', { card_id: subscriptions, merchant_name: 'shop.example.com', ...fields });
      assert.equal(answer.status, 200, answer.text);
      assert.equal(answer.body.amount, expected.amount);
      assert.equal(answer.body.authorization_type, expected.type);
      const window = await windowOf(answer.body.transaction_id);
      assert.equal(secondsOf(window.not_after) - secondsOf(window.not_before), expected.ttlSeconds);
    });
  }
});

describe('POST /merchant-bind', () => {
  test('defaults: amount 0.00, ceiling, 10 minutes, kind merchant_verification', async () => {
    const answer = await stack.a.post('/merchant-bind', { card_id: groceries, merchant_name: 'newshop.example.com' });
    assert.equal(answer.status, 200, answer.text);
    assertKeys(answer.body, AUTHORIZATION_KEYS, 'authorization');
    assert.equal(answer.body.amount, '0.00');
    assert.equal(answer.body.kind, 'merchant_verification');
    assert.equal(answer.body.authorization_type, 'ceiling');
    assert.equal(answer.body.currency, 'USD');
    assert.equal(answer.body.status, 'active');
    const window = await windowOf(answer.body.transaction_id);
    assert.equal(secondsOf(window.not_after) - secondsOf(window.not_before), 10 * 60);
  });

  test('amount 1.00 (the cap) and ttl_minutes are honoured', async () => {
    const answer = await stack.a.post('/merchant-bind', { card_id: groceries, merchant_name: 'other.example.com', amount: 1, ttl_minutes: 5 });
    assert.equal(answer.status, 200, answer.text);
    assert.equal(answer.body.amount, '1.00');
    const window = await windowOf(answer.body.transaction_id);
    assert.equal(secondsOf(window.not_after) - secondsOf(window.not_before), 5 * 60);
  });
});

describe('POST /recurring', () => {
  test('defaults: ceiling, interval_count 1, one year; the schedule fields are shown', async () => {
    const answer = await stack.a.post('/recurring', { card_id: subscriptions, merchant_name: 'stream.example.com', amount: '9.99', interval: 'month' });
    assert.equal(answer.status, 200, answer.text);
    const body = answer.body;
    assertKeys(body, RECURRING_KEYS, 'recurring authorization');
    assert.equal(body.kind, 'recurring');
    assert.equal(body.authorization_type, 'ceiling');
    assert.equal(body.amount, '9.99');
    assert.equal(body.interval, 'month');
    assert.equal(body.interval_count, 1);
    assert.equal(body.max_charges, null);
    const window = await windowOf(body.transaction_id);
    const start = secondsOf(window.not_before);
    assert.equal(secondsOf(window.not_after) - start, 365 * 86_400);
    assert.equal(body.current_period_start, window.not_before);
    const periodEnd = new Date(start * 1000);
    periodEnd.setUTCMonth(periodEnd.getUTCMonth() + 1);
    // A month from the 29th–31st may clamp to the next month's last day; the start's month is never skipped.
    assert.ok(secondsOf(body.current_period_end) > start + 27 * 86_400 && secondsOf(body.current_period_end) <= periodEnd.getTime() / 1000);
  });

  test('every field given: exact, interval_count, starts_at, ends_at, max_charges', async () => {
    const startsAt = Math.floor(Date.now() / 1000) + 3600;
    const startsIso = new Date(startsAt * 1000).toISOString().replace('.000Z', 'Z');
    const endsIso = new Date((startsAt + 90 * 86_400) * 1000).toISOString().replace('.000Z', 'Z');
    const answer = await stack.a.post('/recurring', {
      card_id: subscriptions,
      merchant_name: 'gym.example.com',
      amount: 25,
      currency: 'USD',
      authorization_type: 'exact',
      interval: 'week',
      interval_count: 2,
      starts_at: startsIso,
      ends_at: endsIso,
      max_charges: 6,
    });
    assert.equal(answer.status, 200, answer.text);
    assert.equal(answer.body.authorization_type, 'exact');
    assert.equal(answer.body.amount, '25.00');
    assert.equal(answer.body.interval, 'week');
    assert.equal(answer.body.interval_count, 2);
    assert.equal(answer.body.max_charges, 6);
    assert.equal(answer.body.expires_at, endsIso);
    assert.equal(answer.body.current_period_start, startsIso);
    assert.equal(secondsOf(answer.body.current_period_end), startsAt + 14 * 86_400);
  });
});

describe('signing primitives', () => {
  test('POST /sign-card-policy-window returns {policy_window, jws, key_id} with the defaults of /authorize', async () => {
    const answer = await stack.a.post('/sign-card-policy-window', { card_id: groceries, amount: 4.2, merchant_name: 'shop.example.com' });
    assert.equal(answer.status, 200, answer.text);
    assertKeys(answer.body, ['policy_window', 'jws', 'key_id']);
    const window = answer.body.policy_window;
    assertKeys(window, WINDOW_PAYLOAD_KEYS, 'policy_window');
    assert.equal(window.v, 1);
    assert.equal(window.typ, 'card_policy_window');
    assert.equal(window.card_id, groceries);
    assert.equal(window.amount, '4.20');
    assert.equal(window.currency, 'USD');
    assert.equal(window.authorization_type, 'exact');
    assert.equal(window.kind, 'one_time');
    assert.equal(window.not_after - window.not_before, 1800);
    assert.equal(window.device_id, [...stack.sandbox.state().devices.keys()][0]);
    assert.deepEqual(decodeJwsPayload(answer.body.jws), window);
    assert.equal(answer.body.key_id, (await stack.a.get('/health')).body.signing_key.key_id);
  });

  test('POST /sign-policy-window is account-wide: no card_id, typ policy_window', async () => {
    const answer = await stack.a.post('/sign-policy-window', { amount: '15', merchant_name: 'shop.example.com', authorization_type: 'ceiling', ttl_minutes: 60 });
    assert.equal(answer.status, 200, answer.text);
    assertKeys(answer.body, ['policy_window', 'jws', 'key_id']);
    const window = answer.body.policy_window;
    assertKeys(window, WINDOW_PAYLOAD_KEYS.filter((key) => key !== 'card_id'), 'policy_window');
    assert.equal(window.typ, 'policy_window');
    assert.equal(window.amount, '15.00');
    assert.equal(window.authorization_type, 'ceiling');
    assert.equal(window.not_after - window.not_before, 3600);
  });

  test('POST /sign-revocation returns {revocation, jws, key_id}; reason is optional', async () => {
    for (const [fields, hasReason] of [[{}, false], [{ reason: 'user cancelled' }, true]] as const) {
      const answer = await stack.a.post('/sign-revocation', { policy_id: 'pw_abc123', ...fields });
      assert.equal(answer.status, 200, answer.text);
      assertKeys(answer.body, ['revocation', 'jws', 'key_id']);
      const keys = ['v', 'typ', 'policy_id', 'device_id', 'nonce', 'iat', ...(hasReason ? ['reason'] : [])];
      assertKeys(answer.body.revocation, keys, 'revocation');
      assert.equal(answer.body.revocation.typ, 'revocation');
      assert.equal(answer.body.revocation.policy_id, 'pw_abc123');
      assert.deepEqual(decodeJwsPayload(answer.body.jws), answer.body.revocation);
    }
  });
});

describe('transactions and the wallet', () => {
  test('GET /transactions: newest first, money as strings, limit / starting_after / card_id / status', async () => {
    const all = await stack.a.get('/transactions?limit=100');
    assert.equal(all.status, 200, all.text);
    assertKeys(all.body, ['transactions', 'has_more']);
    assert.equal(all.body.has_more, false);
    const list: Array<Record<string, any>> = all.body.transactions;
    assert.ok(list.length >= 3);
    for (const transaction of list) {
      assertKeys(transaction, transaction.decline_code === undefined ? TRANSACTION_KEYS : [...TRANSACTION_KEYS, 'decline_code'], 'transaction');
      assert.match(transaction.amount, MONEY);
      secondsOf(transaction.created_at);
    }
    const created = list.map((t) => secondsOf(t.created_at));
    assert.deepEqual(created, [...created].sort((x, y) => y - x));

    const first = await stack.a.get('/transactions?limit=1');
    assert.equal(first.body.transactions.length, 1);
    assert.equal(first.body.has_more, true);
    assert.equal(first.body.transactions[0].id, list[0]?.id);
    const next = await stack.a.get(`/transactions?limit=2&starting_after=${list[0]?.id}`);
    assert.deepEqual(next.body.transactions.map((t: { id: string }) => t.id), list.slice(1, 3).map((t) => t.id));

    const byCard = await stack.a.get(`/transactions?card_id=${groceries}`);
    assert.ok(byCard.body.transactions.length > 0);
    assert.ok(byCard.body.transactions.every((t: { card_id: string }) => t.card_id === groceries));

    const charged = await stack.charge(groceries, 'shop.example.com', '12.50');
    assert.equal(charged.body.decision, 'approved', charged.text);
    const settled = await stack.a.get('/transactions?status=settled');
    assert.deepEqual(settled.body.transactions.map((t: { id: string }) => t.id), [charged.body.transaction.id]);
    assert.equal(settled.body.transactions[0].amount, '12.50');
    assert.equal(settled.body.transactions[0].status, 'settled');
  });

  test('GET /transactions/:tx_id adds the signed policy_window', async () => {
    const created = await stack.a.post('/authorize', { card_id: groceries, amount: '2.00', merchant_name: 'cafe.example.com' });
    assert.equal(created.status, 200, created.text);
    const answer = await stack.a.get(`/transactions/${created.body.transaction_id}`);
    assert.equal(answer.status, 200, answer.text);
    assertKeys(answer.body, [...TRANSACTION_KEYS, 'policy_window']);
    assert.equal(answer.body.status, 'authorized');
    assert.equal(answer.body.amount, '2.00');
    assert.equal(answer.body.merchant, 'cafe.example.com');
    assert.equal(answer.body.policy_id, created.body.policy_id);
    const window = answer.body.policy_window;
    assertKeys(window, POLICY_WINDOW_VIEW_KEYS);
    assert.equal(window.key_id, (await stack.a.get('/health')).body.signing_key.key_id);
    assert.equal(decodeJwsPayload(window.jws)['policy_id'], created.body.policy_id);
  });

  test('a declined charge reads back with its decline_code and policy_window null', async () => {
    const declined = await stack.charge(subscriptions, 'nowhere.example.com', '1.00');
    assert.equal(declined.body.decision, 'declined', declined.text);
    const answer = await stack.a.get(`/transactions/${declined.body.transaction.id}`);
    assert.equal(answer.status, 200, answer.text);
    assertKeys(answer.body, [...TRANSACTION_KEYS, 'decline_code', 'policy_window']);
    assert.equal(answer.body.status, 'declined');
    assert.equal(answer.body.decline_code, declined.body.decline_code);
    assert.equal(answer.body.policy_id, null);
    assert.equal(answer.body.policy_window, null);
  });

  test('POST /wallet/allocate moves wallet funds to a card', async () => {
    const before = await stack.a.get('/wallet/balance');
    const card = await stack.a.get(`/cards/${subscriptions}`);
    const answer = await stack.a.post('/wallet/allocate', { card_id: subscriptions, amount: 10.25 });
    assert.equal(answer.status, 200, answer.text);
    assert.deepEqual(answer.body, { card_id: subscriptions, allocated: '10.25', new_balance: addMoney(card.body.balance, '10.25') });
    const afterwards = await stack.a.get('/wallet/balance');
    assert.deepEqual(afterwards.body, {
      usdt: before.body.usdt,
      allocated: addMoney(before.body.allocated, '10.25'),
      available: addMoney(before.body.available, '-10.25'),
    });
  });
});

/** addMoney adds two decimal strings with two decimals, in integer cents. */
function addMoney(a: string, b: string): string {
  const cents = (text: string) => (text.startsWith('-') ? -1 : 1) * Number(text.replace(/[-.]/g, ''));
  const total = cents(a) + cents(b);
  return `${Math.floor(total / 100)}.${String(total % 100).padStart(2, '0')}`;
}

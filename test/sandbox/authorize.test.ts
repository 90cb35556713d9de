import { test } from 'node:test';
import assert from 'node:assert/strict';
import { toBase64Url, utf8 } from '../../src/crypto/base64url.js';
import { LatchError } from '../../src/errors/latch-error.js';
import { checkInvariants } from '../../src/sandbox/ledger/invariants.js';
import { createWindow } from '../../src/sandbox/ops/authorize.js';
import { DEFAULT_LIMITS } from '../../src/sandbox/ops/limits.js';
import { LedgerHarness, type HarnessDevice } from './harness.js';

interface Fixture {
  h: LedgerHarness;
  device: HarnessDevice;
  card: string;
}

async function fixture(balance = 100_00, dailyLimit = 1000_00): Promise<Fixture> {
  const h = await LedgerHarness.create();
  const device = await h.device();
  const card = await h.card(device.accountId, balance, dailyLimit);
  return { h, device, card };
}

async function expectRefused(result: unknown, code: string, param?: string): Promise<void> {
  assert.ok(result instanceof LatchError, `expected ${code}, got an authorization`);
  assert.equal(result.code, code);
  if (param !== undefined) assert.equal(result.param, param);
}

type Case = [name: string, overrides: (f: Fixture) => Record<string, unknown>, code: string, param?: string];

const refusals: Case[] = [
  ['v other than 1', () => ({ v: 2 }), 'invalid_request', 'v'],
  ['typ of an account-wide window on the card endpoint', () => ({ typ: 'policy_window' }), 'invalid_request', 'typ'],
  ['unknown field', () => ({ extra: true }), 'invalid_request', 'extra'],
  ['merchant not normalized', () => ({ merchant: 'Shop.Example.com' }), 'invalid_request', 'merchant'],
  ['merchant with a trailing dot', () => ({ merchant: 'shop.example.com.' }), 'invalid_request', 'merchant'],
  ['merchant with a scheme', () => ({ merchant: 'https://shop.example.com' }), 'invalid_request', 'merchant'],
  ['merchant as an IP address', () => ({ merchant: '192.168.1.1' }), 'invalid_request', 'merchant'],
  ['merchant wildcard', () => ({ merchant: '*.example.com' }), 'invalid_request', 'merchant'],
  ['amount as a number', () => ({ amount: 10 }), 'invalid_request', 'amount'],
  ['amount with an exponent', () => ({ amount: '1e3' }), 'invalid_request', 'amount'],
  ['amount negative', () => ({ amount: '-1.00' }), 'invalid_request', 'amount'],
  ['amount with three decimals', () => ({ amount: '1.001' }), 'invalid_request', 'amount'],
  ['amount zero', () => ({ amount: '0.00' }), 'invalid_request', 'amount'],
  ['amount above 10,000.00', () => ({ amount: '10000.01' }), 'invalid_request', 'amount'],
  ['unknown card', () => ({ card_id: 'card_unknown12345678' }), 'card_not_found'],
  ['currency other than the card', () => ({ currency: 'EUR' }), 'currency_mismatch', 'currency'],
  ['lowercase currency', () => ({ currency: 'usd' }), 'invalid_request', 'currency'],
  ['window shorter than a minute', (f) => ({ not_after: f.h.ledger.now() + 59 }), 'invalid_request', 'not_after'],
  ['window longer than a day', (f) => ({ not_after: f.h.ledger.now() + 86_401 }), 'invalid_request', 'not_after'],
  ['window already over', (f) => ({ not_before: f.h.ledger.now() - 4000, not_after: f.h.ledger.now() - 1 }), 'invalid_request', 'not_after'],
  ['window starting more than 5 minutes ahead', (f) => ({ not_before: f.h.ledger.now() + 301, not_after: f.h.ledger.now() + 2000 }), 'invalid_request', 'not_before'],
  ['time as text', () => ({ not_before: '1700000000' }), 'invalid_request', 'not_before'],
  ['merchant verification above 1.00', () => ({ kind: 'merchant_verification', amount: '1.01' }), 'verification_cap_exceeded'],
  ['recurring without interval', () => ({ kind: 'recurring' }), 'invalid_request', 'interval'],
  ['interval on a one-time window', () => ({ interval: 'day' }), 'invalid_request', 'interval'],
  ['interval_count zero', (f) => ({ kind: 'recurring', interval: 'day', interval_count: 0, not_after: f.h.ledger.now() + 86_400 * 3 }), 'invalid_request', 'interval_count'],
  ['device_id of another device', () => ({ device_id: 'dev_someoneelse12345678' }), 'invalid_request', 'device_id'],
  ['amount beyond the card balance', () => ({ amount: '100.01' }), 'insufficient_funds'],
];

for (const [name, overrides, code, param] of refusals) {
  test(`authorize refuses: ${name} → ${code}`, async () => {
    const f = await fixture();
    try {
      const before = structuredClone(f.h.ledger.state);
      await expectRefused(await f.h.window(f.device, { card_id: f.card, ...overrides(f) }, 'card_policy_window'), code, param);
      assert.deepEqual(f.h.ledger.state.authorizations, before.authorizations, 'nothing was recorded');
      assert.deepEqual(f.h.ledger.state.cards, before.cards);
    } finally {
      await f.h.dispose();
    }
  });
}

test('authorize: a window holds its amount, creates an authorized transaction and activates the card', async () => {
  const f = await fixture();
  try {
    const w = await f.h.window(f.device, { card_id: f.card, amount: '12.50' });
    assert.ok(!(w instanceof LatchError));
    const state = f.h.ledger.state;
    assert.equal(state.cards.get(f.card)?.held, 12_50);
    assert.equal(state.transactions.get(w.transaction_id as string)?.status, 'authorized');
    assert.equal(w.status, 'active');
    assert.deepEqual(checkInvariants(state), []);
  } finally {
    await f.h.dispose();
  }
});

test('authorize: holds and the daily limit count against each other', async () => {
  const f = await fixture(100_00, 30_00);
  try {
    assert.ok(!((await f.h.window(f.device, { card_id: f.card, amount: '20.00' })) instanceof LatchError));
    await expectRefused(await f.h.window(f.device, { card_id: f.card, amount: '10.01' }), 'daily_limit_exceeded');
    assert.ok(!((await f.h.window(f.device, { card_id: f.card, amount: '10.00' })) instanceof LatchError));
    await expectRefused(await f.h.window(f.device, { card_id: f.card, amount: '0.01' }), 'daily_limit_exceeded');
    // Next UTC day: the limit is fresh, but the funds are still held.
    f.h.clockSeconds += 86_400;
    await f.h.run(() => undefined);
    assert.ok(!((await f.h.window(f.device, { card_id: f.card, amount: '30.00' })) instanceof LatchError));
  } finally {
    await f.h.dispose();
  }
});

test('authorize: the same policy_id cannot be used twice', async () => {
  const f = await fixture();
  try {
    assert.ok(!((await f.h.window(f.device, { card_id: f.card, policy_id: 'pw_samesamesame1234' })) instanceof LatchError));
    await expectRefused(await f.h.window(f.device, { card_id: f.card, policy_id: 'pw_samesamesame1234' }), 'invalid_request', 'policy_id');
  } finally {
    await f.h.dispose();
  }
});

test('authorize: at most 3 merchant verifications per card in any rolling 24 hours', async () => {
  const f = await fixture();
  try {
    for (let i = 0; i < 3; i++) {
      assert.ok(!((await f.h.window(f.device, { card_id: f.card, kind: 'merchant_verification', amount: '0.00' })) instanceof LatchError));
      f.h.clockSeconds += 3600;
    }
    await expectRefused(await f.h.window(f.device, { card_id: f.card, kind: 'merchant_verification', amount: '0.50' }), 'verification_cap_exceeded');
    f.h.clockSeconds += 21 * 3600 + 1;
    assert.ok(!((await f.h.window(f.device, { card_id: f.card, kind: 'merchant_verification', amount: '1.00' })) instanceof LatchError));
  } finally {
    await f.h.dispose();
  }
});

test('authorize: a closed card and another account\'s card are refused', async () => {
  const f = await fixture();
  try {
    const other = await f.h.device();
    const otherCard = await f.h.card(other.accountId, 10_00);
    await expectRefused(await f.h.window(f.device, { card_id: otherCard }), 'card_not_found');
    await f.h.closeCard(f.card);
    await expectRefused(await f.h.window(f.device, { card_id: f.card }), 'card_closed');
  } finally {
    await f.h.dispose();
  }
});

test('authorize: the JWS must verify with a key of the same account, and Ed25519 only', async () => {
  const f = await fixture();
  try {
    const submit = (jws: string) => f.h.run((txn) => createWindow(txn, f.device.accountId, jws, 'card_policy_window', DEFAULT_LIMITS)).catch((e: unknown) => e);
    const payload = f.h.payload(f.device, { card_id: f.card });
    const good = f.h.sign(f.device, payload);
    const [header, body, signature] = good.split('.') as [string, string, string];
    const changedBody = toBase64Url(utf8(JSON.stringify({ ...payload, amount: '99.00' })));
    await expectRefused(await submit(`${header}.${changedBody}.${signature}`), 'invalid_signature', 'jws');
    const noneHeader = toBase64Url(utf8(JSON.stringify({ alg: 'none', kid: f.device.key.keyId })));
    await expectRefused(await submit(`${noneHeader}.${body}.${signature}`), 'invalid_signature', 'jws');
    const hsHeader = toBase64Url(utf8(JSON.stringify({ alg: 'HS256', kid: f.device.key.keyId })));
    await expectRefused(await submit(`${hsHeader}.${body}.${signature}`), 'invalid_signature', 'jws');
    await expectRefused(await submit('not a jws'), 'invalid_request', 'jws');
    // A device of another account signs a window for this account's card.
    const stranger = await f.h.device();
    await expectRefused(await submit(f.h.sign(stranger, f.h.payload(stranger, { card_id: f.card }))), 'device_key_not_recognized', 'jws');
    // A second device of the same account may sign.
    const sibling = await f.h.device(f.device.accountId);
    assert.ok(!((await submit(f.h.sign(sibling, f.h.payload(sibling, { card_id: f.card })))) instanceof Error));
  } finally {
    await f.h.dispose();
  }
});

test('authorize: account-wide windows carry no card and are not merchant verifications', async () => {
  const f = await fixture();
  try {
    await expectRefused(await f.h.window(f.device, { typ: 'policy_window', card_id: f.card }), 'invalid_request', 'card_id');
    await expectRefused(await f.h.window(f.device, { typ: 'policy_window', kind: 'merchant_verification', amount: '0.00' }), 'invalid_request', 'kind');
    const w = await f.h.window(f.device, { typ: 'policy_window' });
    assert.ok(!(w instanceof LatchError));
    assert.deepEqual([w.card_id, w.transaction_id, w.hold], [null, null, 0]);
  } finally {
    await f.h.dispose();
  }
});

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { holdsTestCardNumber } from '../support/card-text.js';
import { enrollDevice, send, startSandbox, type RunningSandbox, type SignedClient } from '../support/sandbox-client.js';

let run: RunningSandbox;
let device: SignedClient;

before(async () => {
  run = await startSandbox();
  device = await enrollDevice(run.admin);
});
after(() => run.stop());

const ADMIN_ROUTES: Array<[string, string, unknown]> = [
  ['POST', '/v1/sandbox/setup-tokens', {}],
  ['POST', '/v1/sandbox/deposits', { account_id: 'acct_x', amount: '1.00' }],
  ['POST', '/v1/sandbox/cards', { account_id: 'acct_x', label: 'x' }],
  ['PATCH', '/v1/sandbox/cards/card_x', { label: 'y' }],
  ['POST', '/v1/sandbox/charges', { card_id: 'card_x', merchant: 'a.example.com', amount: '1.00' }],
  ['POST', '/v1/sandbox/clock', { advance_seconds: 10 }],
  ['GET', '/v1/sandbox/clock', undefined],
  ['GET', '/v1/sandbox/state', undefined],
  ['DELETE', '/v1/sandbox/devices/dev_x', undefined],
];

test('admin routes need the admin key: missing, wrong, or a device signature are all invalid_admin_key', async () => {
  const seqBefore = (await run.admin.state())['journal_seq'];
  for (const [method, path, body] of ADMIN_ROUTES) {
    for (const adminKey of [null, 'wrong-key', `${run.sandbox.adminKey}x`, run.sandbox.adminKey.slice(0, -1)]) {
      const answer = await run.admin.request(method, path, body, { adminKey });
      assert.deepEqual([answer.status, answer.body.error.code], [401, 'invalid_admin_key'], `${method} ${path}`);
      assert.ok(!answer.text.includes(run.sandbox.adminKey));
    }
    const signed = await device.request(method, path, body);
    assert.deepEqual([signed.status, signed.body.error.code], [401, 'invalid_admin_key'], `${method} ${path} signed`);
  }
  // Refused requests changed nothing (the state read itself journals nothing).
  assert.equal((await run.admin.state())['journal_seq'], seqBefore);
});

test('setup tokens: a new account by default, an existing one on request, bounded lifetime', async () => {
  const fresh = await run.admin.request('POST', '/v1/sandbox/setup-tokens', {});
  assert.equal(fresh.status, 201);
  assert.match(fresh.body.setup_token, /^st_/);
  assert.match(fresh.body.account_id, /^acct_/);
  assert.equal(Date.parse(fresh.body.expires_at) - (await run.admin.ledgerNow()) * 1000 <= 900_000, true);
  const same = await run.admin.request('POST', '/v1/sandbox/setup-tokens', { account_id: device.accountId, lifetime_seconds: 60 });
  assert.equal(same.body.account_id, device.accountId);
  for (const body of [{ account_id: 'acct_unknown12345' }, { lifetime_seconds: 0 }, { lifetime_seconds: 999_999_999 }, { lifetime_seconds: '60' }, { extra: 1 }]) {
    const bad = await run.admin.request('POST', '/v1/sandbox/setup-tokens', body);
    assert.deepEqual([bad.status, bad.body.error.code], [400, 'invalid_request'], JSON.stringify(body));
  }
});

test('cards: created frozen with balance deposited and allocated at once; updated; closed for good', async () => {
  const created = await run.admin.request('POST', '/v1/sandbox/cards', { account_id: device.accountId, label: 'Travel', balance: '30.00' });
  assert.equal(created.status, 201);
  assert.deepEqual([created.body.status, created.body.balance, created.body.daily_limit], ['frozen', '30.00', '1000.00']);
  const card = created.body.card_id as string;
  const wallet = () => device.request('GET', '/v1/wallet').then((a) => a.body);
  const before = await wallet();
  const patched = await run.admin.request('PATCH', `/v1/sandbox/cards/${card}`, { label: 'Trips', daily_limit: '50.00' });
  assert.deepEqual([patched.body.label, patched.body.daily_limit], ['Trips', '50.00']);
  const now = await run.admin.ledgerNow();
  const window = (await device.authorize({ card_id: card, amount: '10.00', nowSeconds: now })).body;
  const closed = await run.admin.request('PATCH', `/v1/sandbox/cards/${card}`, { status: 'closed' });
  assert.deepEqual([closed.body.status, closed.body.balance], ['closed', '0.00']);
  const after = await wallet();
  assert.equal(after.usdt, before.usdt);
  assert.equal(Number(after.available), Number(before.available) + 30, 'the balance went back to the wallet');
  assert.equal((await device.request('GET', `/v1/authorizations/${window.policy_id}`)).body.status, 'revoked');
  for (const body of [{ label: 'again' }, { status: 'closed' }]) {
    assert.equal((await run.admin.request('PATCH', `/v1/sandbox/cards/${card}`, body)).body.error.code, 'card_closed');
  }
  assert.equal((await run.admin.charge(card, 'shop.example.com', '1.00')).body.decline_code, 'card_closed');
  assert.equal((await device.authorize({ card_id: card, nowSeconds: now })).body.error.code, 'card_closed');
  const reopen = await run.admin.request('PATCH', `/v1/sandbox/cards/${card}`, { status: 'active' });
  assert.deepEqual([reopen.status, reopen.body.error.param], [400, 'status']);
  assert.equal((await run.admin.request('PATCH', '/v1/sandbox/cards/card_unknown12345', { label: 'x' })).body.error.code, 'card_not_found');
});

test('charges: bad input is a 400, an unknown card is a recorded decline', async () => {
  for (const body of [
    { card_id: 'card_x', merchant: 'https://shop.example.com', amount: '1.00' },
    { card_id: 'card_x', merchant: 'shop.example.com', amount: '-1.00' },
    { card_id: 'card_x', merchant: 'shop.example.com', amount: '1.00', currency: 'usd' },
    { card_id: 'card_x', merchant: 'shop.example.com' },
    { card_id: 42, merchant: 'shop.example.com', amount: '1.00' },
  ]) {
    const answer = await run.admin.request('POST', '/v1/sandbox/charges', body);
    assert.deepEqual([answer.status, answer.body.error.code], [400, 'invalid_request'], JSON.stringify(body));
  }
  const unknown = await run.admin.charge('card_unknown12345', 'shop.example.com', '1.00');
  assert.deepEqual([unknown.status, unknown.body.decision, unknown.body.decline_code, unknown.body.transaction.status], [200, 'declined', 'card_not_found', 'declined']);
});

test('clock: moves the ledger clock forward only, within bounds', async () => {
  const before = await run.admin.ledgerNow();
  const moved = await run.admin.request('POST', '/v1/sandbox/clock', { advance_seconds: 3600 });
  assert.equal(moved.status, 200);
  assert.ok(Date.parse(moved.body.now) / 1000 >= before + 3600);
  for (const advance_seconds of [0, -5, 1.5, '10', 400 * 365 * 86_400]) {
    assert.equal((await run.admin.request('POST', '/v1/sandbox/clock', { advance_seconds })).status, 400, String(advance_seconds));
  }
});

test('clock: offset_seconds sets how far ahead it runs, 0 resets it to the real clock; GET reads it', async () => {
  const ahead = await run.admin.request('POST', '/v1/sandbox/clock', { advance_seconds: 1900 });
  assert.equal(ahead.status, 200);
  const offset = ahead.body.clock_offset_seconds as number;
  assert.ok(offset >= 1900);
  const read = await run.admin.request('GET', '/v1/sandbox/clock');
  assert.deepEqual([read.status, read.body.clock_offset_seconds], [200, offset]);
  const back = await run.admin.request('POST', '/v1/sandbox/clock', { offset_seconds: 100 });
  assert.deepEqual([back.status, back.body.clock_offset_seconds], [200, 100]);
  assert.ok(Math.abs(Date.parse(back.body.now) / 1000 - (Math.floor(Date.now() / 1000) + 100)) <= 2);
  const reset = await run.admin.request('POST', '/v1/sandbox/clock', { offset_seconds: 0 });
  assert.deepEqual([reset.status, reset.body.clock_offset_seconds], [200, 0]);
  assert.ok(Math.abs(Date.parse(reset.body.now) / 1000 - Date.now() / 1000) <= 2);
  for (const body of [{}, { advance_seconds: 1, offset_seconds: 0 }, { offset_seconds: -1 }, { offset_seconds: 1.5 }, { offset_seconds: '0' }, { offset_seconds: 400 * 365 * 86_400 }, { reset: true }]) {
    const refused = await run.admin.request('POST', '/v1/sandbox/clock', body);
    assert.deepEqual([refused.status, refused.body.error.code], [400, 'invalid_request'], JSON.stringify(body));
  }
  await run.admin.request('POST', '/v1/sandbox/clock', { offset_seconds: 0 });
});

test('no secret reaches the state dump or the journal: admin key, setup tokens', async () => {
  const token = (await run.admin.setupToken()).setup_token;
  const dump = JSON.stringify(await run.admin.state());
  const journal = readFileSync(run.sandbox.journalPath).toString('latin1');
  for (const secret of [run.sandbox.adminKey, token]) {
    assert.ok(!dump.includes(secret));
    assert.ok(!journal.includes(secret));
  }
});

test('bad requests are answered with the error body, never a crash', async () => {
  const url = run.sandbox.url;
  const auth = { authorization: `Bearer ${run.sandbox.adminKey}` };
  const cases: Array<[string, Parameters<typeof send>[1], number, string]> = [
    ['unknown path', { method: 'GET', target: '/v1/nothing', headers: auth }, 404, 'not_found'],
    ['wrong method', { method: 'PUT', target: '/v1/cards', headers: auth }, 405, 'method_not_allowed'],
    ['text body', { method: 'POST', target: '/v1/sandbox/clock', headers: { ...auth, 'content-type': 'text/plain' }, body: 'advance' }, 415, 'unsupported_media_type'],
    ['not JSON', { method: 'POST', target: '/v1/sandbox/clock', headers: { ...auth, 'content-type': 'application/json' }, body: '{advance' }, 400, 'invalid_request'],
    ['duplicate keys', { method: 'POST', target: '/v1/sandbox/clock', headers: { ...auth, 'content-type': 'application/json' }, body: '{"advance_seconds":1,"advance_seconds":2}' }, 400, 'invalid_request'],
    ['too deep', { method: 'POST', target: '/v1/sandbox/clock', headers: { ...auth, 'content-type': 'application/json' }, body: '['.repeat(50) + ']'.repeat(50) }, 400, 'invalid_request'],
    ['invalid UTF-8', { method: 'POST', target: '/v1/sandbox/clock', headers: { ...auth, 'content-type': 'application/json' }, body: new Uint8Array([0x7b, 0xff, 0x7d]) }, 400, 'invalid_request'],
    ['body over 1 MiB', { method: 'POST', target: '/v1/sandbox/clock', headers: { ...auth, 'content-type': 'application/json' }, body: `"${'a'.repeat(1024 * 1024)}"` }, 413, 'payload_too_large'],
    ['GET with a body', { method: 'GET', target: '/v1/sandbox/state', headers: { ...auth, 'content-type': 'application/json' }, body: '{}' }, 400, 'invalid_request'],
    ['a card number in the body', { method: 'POST', target: '/v1/sandbox/charges', headers: { ...auth, 'content-type': 'application/json' }, body: '{"card_id":"4111 1111 1111 1111","merchant":"a.example.com","amount":"1"}' }, 400, 'card_data_not_accepted'],
    ['a cvv field', { method: 'POST', target: '/v1/sandbox/cards', headers: { ...auth, 'content-type': 'application/json' }, body: '{"account_id":"acct_x","label":"x","cvv":"123"}' }, 400, 'card_data_not_accepted'],
    ['a card number in the path', { method: 'GET', target: '/v1/cards/4111111111111111', headers: auth }, 400, 'card_data_not_accepted'],
    ['a bad percent escape', { method: 'GET', target: '/v1/cards/%zz', headers: auth }, 404, 'not_found'],
  ];
  for (const [name, request, status, code] of cases) {
    const answer = await send(url, request);
    assert.equal(answer.status, status, name);
    assert.equal(answer.body?.error?.code, code, name);
    assert.match(answer.body.error.request_id, /^req_/, name);
    assert.ok(!holdsTestCardNumber(answer.text), `${name}: card data is never echoed`);
  }
});

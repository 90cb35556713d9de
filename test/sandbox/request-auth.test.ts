import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { utf8 } from '../../src/crypto/base64url.js';
import { contentDigest } from '../../src/crypto/content-digest.js';
import { enrollDevice, newTestKey, send, signedHeaders, startSandbox, type RunningSandbox, type SignedClient } from '../support/sandbox-client.js';

let run: RunningSandbox;
let device: SignedClient;

before(async () => {
  run = await startSandbox();
  device = await enrollDevice(run.admin);
});
after(() => run.stop());

function assertError(answer: { status: number; body: any }, status: number, code: string): void {
  assert.equal(answer.status, status, JSON.stringify(answer.body));
  assert.equal(answer.body?.error?.code, code);
  assert.equal(typeof answer.body.error.message, 'string');
}

test('a signed request from an enrolled device is accepted', async () => {
  const answer = await device.request('GET', '/v1/wallet');
  assert.equal(answer.status, 200);
  assert.deepEqual(answer.body, { usdt: '0.00', allocated: '0.00', available: '0.00' });
});

test('a replayed signed request is refused with replayed_request, also after a restart', async () => {
  const request = device.prepare('GET', '/v1/cards');
  assert.equal((await send(device.baseUrl, request)).status, 200);
  assertError(await send(device.baseUrl, request), 401, 'replayed_request');
  // Concurrent copies of one fresh request: exactly one is accepted.
  const fresh = device.prepare('GET', '/v1/cards');
  const answers = await Promise.all(Array.from({ length: 10 }, () => send(device.baseUrl, fresh)));
  assert.equal(answers.filter((a) => a.status === 200).length, 1);
  assert.ok(answers.every((a) => a.status === 200 || a.body.error.code === 'replayed_request'));
  // The nonce store is in the journal: a restart does not forget it.
  const again = device.prepare('GET', '/v1/wallet');
  assert.equal((await send(device.baseUrl, again)).status, 200);
  run = await run.restart();
  assert.equal(run.sandbox.url, device.baseUrl);
  assertError(await send(run.sandbox.url, again), 401, 'replayed_request');
});

test('a body changed after signing is refused', async () => {
  const request = device.prepare('POST', '/v1/wallet/allocate', { card_id: 'card_aaaaaaaaaaaa', amount: '1.00' });
  const altered = { ...request, body: JSON.stringify({ card_id: 'card_aaaaaaaaaaaa', amount: '9.00' }) };
  assertError(await send(device.baseUrl, altered), 401, 'invalid_signature');
  // Changing the Content-Digest along with the body breaks the signature instead.
  const redigested = { ...altered, headers: { ...request.headers, 'content-digest': contentDigest(utf8(altered.body)) } };
  assertError(await send(device.baseUrl, redigested), 401, 'invalid_signature');
});

test('signature checks: each broken part gets its own error', async () => {
  // The cloud reads its clock to the second a moment after the case is built; one second apart
  // either way is kept clear of the 300 s bound, so a second ticking over in between (the test
  // once failed so) cannot move a case across it.
  const nowSeconds = () => Math.floor(Date.now() / 1000);
  const stranger = newTestKey();
  const cases: Array<[string, () => ReturnType<SignedClient['prepare']>, number, string]> = [
    ['no signature at all', () => ({ method: 'GET', target: '/v1/cards', headers: {} }), 401, 'invalid_signature'],
    ['an unknown key id', () => ({ method: 'GET', target: '/v1/cards', headers: signedHeaders(device.baseUrl, stranger, 'GET', '/v1/cards', undefined) }), 401, 'device_key_not_recognized'],
    ['a signature by another key under this key id', () => ({ method: 'GET', target: '/v1/cards', headers: signedHeaders(device.baseUrl, stranger, 'GET', '/v1/cards', undefined, { keyId: device.key.keyId }) }), 401, 'invalid_signature'],
    ['created 302 s ago', () => device.prepare('GET', '/v1/cards', undefined, { sign: { created: nowSeconds() - 302, expires: nowSeconds() + 100 } }), 401, 'signature_expired'],
    ['created 302 s ahead', () => device.prepare('GET', '/v1/cards', undefined, { sign: { created: nowSeconds() + 302 } }), 401, 'signature_expired'],
    ['expires in the past', () => device.prepare('GET', '/v1/cards', undefined, { sign: { created: nowSeconds() - 10, expires: nowSeconds() - 5 } }), 401, 'signature_expired'],
    ['no nonce', () => device.prepare('GET', '/v1/cards', undefined, { sign: { nonce: 'short' } }), 401, 'invalid_signature'],
    ['another algorithm named', () => device.prepare('GET', '/v1/cards', undefined, { sign: { alg: 'hmac-sha256' } }), 401, 'invalid_signature'],
    // Domain separation (§34.2): a signature made for another purpose (or none named) is not a request's.
    ['no tag', () => device.prepare('GET', '/v1/cards', undefined, { sign: { tag: null } }), 401, 'invalid_signature'],
    ["another purpose's tag", () => device.prepare('GET', '/v1/cards', undefined, { sign: { tag: 'web-bot-auth' } }), 401, 'invalid_signature'],
    ['@query not covered', () => device.prepare('GET', '/v1/cards', undefined, { sign: { components: ['@method', '@authority', '@path'] } }), 401, 'invalid_signature'],
    ['content-digest not covered', () => device.prepare('POST', '/v1/wallet/allocate', { card_id: 'card_x', amount: '1' }, { sign: { components: ['@method', '@authority', '@path', '@query', 'content-type'] } }), 401, 'invalid_signature'],
    ['signed for another authority', () => device.prepare('GET', '/v1/cards', undefined, { sign: { authority: 'cloud.example.com' } }), 401, 'invalid_signature'],
  ];
  for (const [name, build, status, code] of cases) {
    const answer = await send(device.baseUrl, build());
    assert.equal(answer.status, status, name);
    assert.equal(answer.body.error.code, code, name);
  }
});

test('the signature covers the path and the query as sent', async () => {
  const request = device.prepare('GET', '/v1/transactions?limit=5');
  assertError(await send(device.baseUrl, { ...request, target: '/v1/transactions?limit=6' }), 401, 'invalid_signature');
  assertError(await send(device.baseUrl, { ...request, target: '/v1/authorizations?limit=5' }), 401, 'invalid_signature');
  const signedAsDelete = signedHeaders(device.baseUrl, device.key, 'DELETE', '/v1/transactions?limit=5', undefined);
  assertError(await send(device.baseUrl, { method: 'GET', target: '/v1/transactions?limit=5', headers: signedAsDelete }), 401, 'invalid_signature');
  assert.equal((await send(device.baseUrl, request)).status, 200);
});

test('enrollment: proof of possession, one use per token, expiry on the ledger clock', async () => {
  const enroll = async (token: string, key = newTestKey(), signer = key, extra: Record<string, unknown> = {}) => {
    const body = JSON.stringify({ setup_token: token, public_key: key.jwk, name: 'laptop', ...extra });
    return send(run.sandbox.url, { method: 'POST', target: '/v1/devices', headers: signedHeaders(run.sandbox.url, signer, 'POST', '/v1/devices', utf8(body)), body });
  };
  const first = await run.admin.setupToken(device.accountId);
  const key = newTestKey();
  assertError(await enroll(first.setup_token, key, newTestKey()), 401, 'invalid_signature');
  const enrolled = await enroll(first.setup_token, key);
  assert.equal(enrolled.status, 201);
  assert.deepEqual(Object.keys(enrolled.body).sort(), ['account_id', 'device_id', 'key_id']);
  assert.equal(enrolled.body.key_id, key.keyId);
  assert.equal(enrolled.body.account_id, device.accountId);
  assertError(await enroll(first.setup_token), 401, 'setup_token_invalid');
  assertError(await enroll('st_neverissuedtoken123456'), 401, 'setup_token_invalid');
  assertError(await enroll((await run.admin.setupToken()).setup_token, key), 400, 'invalid_request');
  const withPrivate = await enroll(first.setup_token, newTestKey(), undefined, { public_key: { ...newTestKey().jwk, d: 'AAAA' } });
  assertError(withPrivate, 400, 'invalid_request');

  const expiring = await run.admin.setupToken(undefined, 60);
  await run.admin.advance(61);
  assertError(await enroll(expiring.setup_token), 401, 'setup_token_expired');
});

test('a device the cloud forgot is not recognized', async () => {
  const victim = await enrollDevice(run.admin, device.accountId);
  assert.equal((await victim.request('GET', '/v1/cards')).status, 200);
  const removed = await run.admin.request('DELETE', `/v1/sandbox/devices/${victim.deviceId}`);
  assert.equal(removed.status, 200);
  assertError(await victim.request('GET', '/v1/cards'), 401, 'device_key_not_recognized');
  assertError(await run.admin.request('DELETE', `/v1/sandbox/devices/${victim.deviceId}`), 400, 'invalid_request');
});

test('a signature made for another host is refused even with a valid key (the signed @authority must be this cloud)', async () => {
  const port = new URL(device.baseUrl).port;
  for (const authority of ['api.other-cloud.example', `evil.example:${port}`, '127.0.0.1:1']) {
    const headers = signedHeaders(device.baseUrl, device.key, 'GET', '/v1/wallet', undefined, { authority });
    assertError(await send(device.baseUrl, { method: 'GET', target: '/v1/wallet', headers: { ...headers, host: authority } }), 401, 'invalid_signature');
  }
  // Every loopback spelling of the sandbox's own address is its own.
  for (const name of ['127.0.0.1', 'localhost', 'LOCALHOST']) {
    const authority = `${name}:${port}`;
    const headers = signedHeaders(device.baseUrl, device.key, 'GET', '/v1/wallet', undefined, { authority });
    const answer = await send(device.baseUrl, { method: 'GET', target: '/v1/wallet', headers: { ...headers, host: authority } });
    assert.equal(answer.status, 200, `${authority}: ${answer.text}`);
  }
});

test('an Idempotency-Key the signature does not cover is refused on every route that takes one; covered, it is honoured', async () => {
  const body = { card_id: 'card_aaaaaaaaaaaa', amount: '1.00' };
  const bare = ['@method', '@authority', '@path', '@query', 'content-type', 'content-digest'];
  const routes: Array<[string, string, unknown]> = [
    ['POST', '/v1/wallet/allocate', body],
    ['POST', '/v1/authorizations', { jws: 'a.b.c' }],
    ['POST', '/v1/authorizations/pw_aaaaaaaaaaaa/revoke', { jws: 'a.b.c' }],
    ['POST', '/v1/policy-windows', { jws: 'a.b.c' }],
    ['GET', '/v1/wallet', undefined],
  ];
  for (const [method, target, json] of routes) {
    const components = json === undefined ? bare.slice(0, 4) : bare;
    const uncovered = await device.request(method, target, json, { idempotencyKey: `idem_uncovered_${method}`, sign: { components } });
    assertError(uncovered, 401, 'invalid_signature');
    assert.match(uncovered.body.error.message, /idempotency-key/, `${method} ${target}`);
  }
  // Covered (the default of the test client, as of the daemon), the key works as before: a retry replays.
  const first = await device.request('POST', '/v1/wallet/allocate', body, { idempotencyKey: 'idem_covered_once' });
  const retry = await device.request('POST', '/v1/wallet/allocate', body, { idempotencyKey: 'idem_covered_once' });
  assert.deepEqual([retry.status, retry.body], [first.status, first.body]);
  assert.ok(first.status !== 401, JSON.stringify(first.body));
});

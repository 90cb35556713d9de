/**
 * Signing end to end (decisions §5, §6): policy windows and revocations are compact EdDSA JWS
 * that node:crypto verifies with the device's public JWK as registered in the cloud; kid and
 * key_id are the RFC 7638 thumbprint; the signing primitives contact nobody; and every request
 * the daemon sends upstream carries a verifiable RFC 9421 signature with Content-Digest.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startExtraDaemon, type ExtraDaemon } from '../support/extra-daemon.js';
import { verifyLatchSignature } from '../support/independent-http-signature.js';
import { rfc7638Thumbprint, verifyCompactJws, type PublicJwk } from '../support/independent-jose.js';
import { jsonAnswer, startRecordingServer, type RecordingServer } from '../support/recording-server.js';
import { startStack, type Stack } from '../support/stack.js';

let stack: Stack;
let jwk: PublicJwk;
let keyId: string;
before(async () => {
  stack = await startStack();
  const device = [...stack.sandbox.state().devices.values()][0];
  assert.ok(device !== undefined);
  // The key as the cloud registered it at enrollment: what a relying party would verify with.
  jwk = { kty: 'OKP', crv: 'Ed25519', x: device.public_key_x };
  keyId = device.key_id;
});
after(() => stack.close());

const card = () => stack.cards[0].card_id;

/** The three signing primitives with valid bodies. */
function primitives(): Array<[string, Record<string, unknown>, string]> {
  return [
    ['/sign-card-policy-window', { card_id: card(), amount: '12.50', merchant_name: 'shop.example.com' }, 'policy_window'],
    ['/sign-policy-window', { amount: '12.50', merchant_name: 'shop.example.com' }, 'policy_window'],
    ['/sign-revocation', { policy_id: 'pw_abc123', reason: 'user cancelled' }, 'revocation'],
  ];
}

describe('JWS', () => {
  test('key_id is the RFC 7638 thumbprint of the registered key; /health shows the same key', async () => {
    assert.equal(rfc7638Thumbprint(jwk), keyId);
    const health = await stack.a.get('/health');
    assert.equal(health.body.signing_key.key_id, keyId);
    assert.equal(health.body.signing_key.public_key, jwk.x);
  });

  for (const [target, field] of [['/sign-card-policy-window', 'policy_window'], ['/sign-policy-window', 'policy_window'], ['/sign-revocation', 'revocation']] as const) {
    test(`${target}: verifies with node:crypto, alg EdDSA, kid = key_id = thumbprint, payload = ${field}`, async () => {
      const body = primitives().find(([t]) => t === target)?.[1];
      const answer = await stack.a.post(target, body);
      assert.equal(answer.status, 200, answer.text);
      const verified = verifyCompactJws(answer.body.jws, jwk);
      assert.equal(verified.header['alg'], 'EdDSA');
      assert.equal(verified.header['kid'], keyId);
      assert.equal(answer.body.key_id, keyId);
      assert.deepEqual(verified.payload, answer.body[field]);
      assert.equal(verified.payload['device_id'], [...stack.sandbox.state().devices.keys()][0]);
      // The verifier can fail: one changed payload byte breaks it.
      const [h, p, s] = (answer.body.jws as string).split('.') as [string, string, string];
      const forged = Buffer.from(JSON.stringify({ ...verified.payload, amount: '99.99' })).toString('base64url');
      assert.throws(() => verifyCompactJws(`${h}.${forged}.${s}`, jwk), /does not verify/);
      assert.notEqual(forged, p);
    });
  }

  test('the window behind /authorize is the one the cloud holds, and it verifies', async () => {
    const created = await stack.a.post('/authorize', { card_id: card(), amount: 3, merchant_name: 'shop.example.com' });
    assert.equal(created.status, 200, created.text);
    const held = stack.sandbox.state().authorizations.get(created.body.policy_id);
    assert.ok(held !== undefined);
    const verified = verifyCompactJws(held.jws, jwk);
    assert.equal(verified.payload['policy_id'], created.body.policy_id);
    assert.equal(verified.payload['typ'], 'card_policy_window');
    assert.equal(verified.payload['amount'], '3.00');
    assert.equal(verified.payload['not_after'], Date.parse(created.body.expires_at) / 1000);
  });
});

describe('the signing primitives contact nobody', () => {
  test('a daemon pointed at a recording cloud signs all three and the cloud receives nothing', async () => {
    const cloud = await startRecordingServer();
    const daemon: ExtraDaemon = await startExtraDaemon(stack.home, { LATCH_CLOUD_URL: cloud.url });
    try {
      for (const [target, body] of primitives()) {
        const answer = await daemon.a.post(target, body);
        assert.equal(answer.status, 200, answer.text);
        verifyCompactJws(answer.body.jws, jwk);
      }
      assert.equal(cloud.requests.length, 0);
    } finally {
      await daemon.close();
      await cloud.close();
    }
  });

  test('they still work with the sandbox stopped', async () => {
    const down = await startStack();
    try {
      await down.sandbox.close();
      const cardId = down.cards[0].card_id;
      for (const [target, body] of [
        ['/sign-card-policy-window', { card_id: cardId, amount: 1, merchant_name: 'shop.example.com' }],
        ['/sign-policy-window', { amount: 1, merchant_name: 'shop.example.com' }],
        ['/sign-revocation', { policy_id: 'pw_abc' }],
      ] as const) {
        const answer = await down.a.post(target, body);
        assert.equal(answer.status, 200, `${target}: ${answer.text}`);
      }
    } finally {
      await down.close();
    }
  });
});

describe('RFC 9421 on every upstream request', () => {
  let cloud: RecordingServer;
  let daemon: ExtraDaemon;
  before(async () => {
    cloud = await startRecordingServer();
    daemon = await startExtraDaemon(stack.home, { LATCH_CLOUD_URL: cloud.url });
  });
  after(async () => {
    await daemon.close();
    await cloud.close();
  });

  test('reads, /authorize and proxied requests: label latch, ed25519, keyid, created/expires 300 s, nonce, digest', async () => {
    cloud.respondWith(jsonAnswer(418, { anything: true }));
    await daemon.a.get('/cards');
    await daemon.a.get('/transactions?limit=5&status=settled');
    await daemon.a.post('/authorize', { card_id: card(), amount: 1, merchant_name: 'shop.example.com' });
    await daemon.a.post('/wallet/allocate', { card_id: card(), amount: 1 });
    await daemon.a.get('/v1/wallet?x=1&y=%20');
    await daemon.a.post('/v1/wallet/allocate', { a: 1 });
    await daemon.a.get('/v1/authorizations/pw_thing1');
    assert.equal(cloud.requests.length, 7);
    const nonces = new Set<string>();
    for (const request of cloud.requests) {
      const checked = verifyLatchSignature(request, jwk);
      assert.equal(checked.keyid, keyId);
      assert.equal(checked.alg, 'ed25519');
      assert.equal(checked.expires - checked.created, 300);
      assert.ok(Math.abs(checked.created - Date.now() / 1000) < 300);
      assert.match(checked.nonce, /^[A-Za-z0-9_-]{16,}$/);
      nonces.add(checked.nonce);
      const expected = [
        '@method',
        '@authority',
        '@path',
        '@query',
        ...(request.body.length > 0 ? ['content-type', 'content-digest'] : []),
        ...(request.headers['idempotency-key'] !== undefined ? ['idempotency-key'] : []),
      ];
      assert.deepEqual(checked.components, expected, `${request.method} ${request.target}`);
      assert.equal(request.headers['host'], `127.0.0.1:${cloud.port}`);
    }
    assert.equal(nonces.size, cloud.requests.length, 'a fresh nonce per request');
    assert.deepEqual(
      cloud.requests.map((r) => `${r.method} ${r.target}`),
      [
        'GET /v1/cards',
        'GET /v1/transactions?limit=5&status=settled',
        'POST /v1/authorizations',
        'POST /v1/wallet/allocate',
        'GET /v1/wallet?x=1&y=%20',
        'POST /v1/wallet/allocate',
        'GET /v1/authorizations/pw_thing1',
      ],
    );
  });
});

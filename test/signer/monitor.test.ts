/**
 * The signer is a monitor (docs/decisions.md §34.1): each purpose checks its precondition against
 * the ledger and the keys the signer holds, whatever its caller passes. Each broken precondition
 * below is a caller that skipped the decision, the record or the enumerated calls: entering a
 * purpose so is an invariant (signing_purpose_entered, §42), so the handler is called and nothing
 * is signed. What the data directory can change under a request (its key gone) stays a refusal.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { inspect } from 'node:util';
import { HTTP_SIGNATURE_TAG } from '../../src/crypto/signature-purposes.js';
import { heldKey } from '../../src/signer/held-keys.js';
import { MandateKey } from '../../src/signer/ap2-mandate.js';
import { generateP256Scalar } from '../../src/signer/p256-scalar.js';
import { dataDirEnrollmentStore } from '../../src/signer/enrollment-store.js';
import { ensureHome } from '../../src/datadir/home.js';
import { assertPurposeBroken, testSigner } from '../support/test-signer.js';
import { LatchError } from '../../src/errors/latch-error.js';
import { tempHome } from '../datadir/temp-home.js';

const payload = { v: 1 as const, typ: 'card_policy_window' as const, policy_id: 'pw_1', device_id: 'dev_1', card_id: 'card_1', merchant: 'shop.example', amount: '12.50', currency: 'USD', authorization_type: 'exact' as const, kind: 'one_time' as const, not_before: 10, not_after: 20, nonce: 'n', iat: 10 };
const entry = { policyId: 'pw_1', agent: 'owner', cardId: 'card_1', merchant: 'shop.example', currency: 'USD', amountMinor: 1250, kind: 'one_time' as const, authorizationType: 'exact' as const, signedAtSeconds: 10, notAfterSeconds: 20, state: 'active' as const, usedMinor: null };
const ledger = (found: object | undefined) => ({ get: (policyId: string) => (policyId === 'pw_1' ? (found as never) : undefined) });
const secret = new Uint8Array(32).fill(3);

test('a window only as the ledger recorded it: active, every term the same', () => {
  const { signer, key } = testSigner(secret, ledger(entry));
  assert.match(signer.window(key.keyId, payload), /^[\w-]+\.[\w-]+\.[\w-]+$/);
  assertPurposeBroken(() => testSigner(secret, ledger(undefined)).signer.window(key.keyId, payload), /^window pw_1: .*no entry/);
  for (const state of ['failed', 'unregistered', 'used', 'revoked', 'expired']) assertPurposeBroken(() => testSigner(secret, ledger({ ...entry, state })).signer.window(key.keyId, payload), /ledger entry is/);
  assertPurposeBroken(() => signer.window(key.keyId, { ...payload, amount: '99.00' }), /amount/);
  assertPurposeBroken(() => signer.window(key.keyId, { ...payload, merchant: 'other.example' }), /merchant/);
  assertPurposeBroken(() => signer.window(key.keyId, { ...payload, not_after: 21 }), /not_after/);
  // A key the data directory no longer holds is outside state, not a broken promise: a 503.
  assert.throws(() => signer.window('another-key-id', payload), (error: unknown) => error instanceof LatchError && error.code === 'data_directory_unavailable');
});

test('an evidence pack only when its window is the JWS the ledger kept', () => {
  const { signer, key } = testSigner(secret, ledger({ ...entry, jws: 'kept.window.jws' }));
  const pack = (window: string, extra: object = {}) => JSON.stringify({ v: 1, type: 'latch_evidence', policy_id: 'pw_1', window: { jws: window }, ...extra });
  assert.match(signer.evidencePack(key.keyId, pack('kept.window.jws')), /^[\w-]+\.[\w-]+\.[\w-]+$/);
  assertPurposeBroken(() => signer.evidencePack(key.keyId, pack('a.forged.window')), /^evidence pack pw_1: .*not the JWS the ledger kept/);
  assertPurposeBroken(() => signer.evidencePack(key.keyId, pack('kept.window.jws', { policy_id: 'pw_2' })), /not the JWS the ledger kept/);
  // A window-shaped payload, the red team's reproduction: no pack, so no signature.
  assertPurposeBroken(() => signer.evidencePack(key.keyId, JSON.stringify(payload)), /not a v1 evidence pack/);
  assertPurposeBroken(() => signer.evidencePack(key.keyId, 'not json'), /not a v1 evidence pack/);
});

test('mandates only with a mandate key (its file gone is a 503) and a recorded ap2_mandate entry', () => {
  const { signer } = testSigner(secret, ledger(entry));
  assert.throws(() => signer.openMandates('pw_1', undefined), (error: unknown) => error instanceof LatchError && error.code === 'data_directory_unavailable');
  const withKey = testSigner(secret, ledger(entry), MandateKey.fromScalar(generateP256Scalar())).signer;
  assertPurposeBroken(() => withKey.openMandates('pw_1', undefined), /^mandates pw_1: .*not an active AP2 mandate request/);
  assertPurposeBroken(() => withKey.openMandates('pw_2', undefined), /^mandates pw_2: .*no entry/);
});

test('a revocation only as buildRevocationPayload makes it, for any policy id', () => {
  const { signer, key } = testSigner(secret);
  const revocation = { v: 1 as const, typ: 'revocation' as const, policy_id: 'pw_unknown', device_id: 'dev_1', nonce: 'n', iat: 10 };
  assert.match(signer.revocation(key.keyId, revocation), /^[\w-]+\.[\w-]+\.[\w-]+$/, 'an id the ledger does not keep: a revocation only takes authority away');
  assertPurposeBroken(() => signer.revocation(key.keyId, { ...revocation, policy_id: '' }), /^revocation: /);
  assertPurposeBroken(() => signer.revocation(key.keyId, { ...revocation, typ: 'card_policy_window' } as never), /^revocation: /);
});

test('an x402 receipt only for the ledger\'s active, authorized x402 entry', () => {
  const x402 = { ...entry, x402: { state: 'authorized' } };
  const keyId = testSigner(secret).key.keyId;
  assertPurposeBroken(() => testSigner(secret, ledger(undefined)).signer.x402Receipt(keyId, 'pw_1'), /^x402 receipt pw_1: .*no entry/);
  assertPurposeBroken(() => testSigner(secret, ledger(entry)).signer.x402Receipt(keyId, 'pw_1'), /not an active, authorized x402 entry/);
  assertPurposeBroken(() => testSigner(secret, ledger({ ...x402, x402: { state: 'released' } })).signer.x402Receipt(keyId, 'pw_1'), /not an active, authorized x402 entry/);
  assertPurposeBroken(() => testSigner(secret, ledger({ ...x402, state: 'revoked' })).signer.x402Receipt(keyId, 'pw_1'), /not an active, authorized x402 entry/);
});

test('a key proof only of a well-formed challenge on an address', () => {
  const { signer, key } = testSigner(secret);
  const challenge = 'A'.repeat(43);
  assert.equal(signer.keyProof(key.keyId, challenge, '127.0.0.1:7723').length, 64);
  assertPurposeBroken(() => signer.keyProof(key.keyId, `${challenge}\nlatch-window`, '127.0.0.1:7723'), /^key proof by /);
  assertPurposeBroken(() => signer.keyProof(key.keyId, challenge, '127.0.0.1:7723\nx'), /^key proof by /);
});

test('an upstream request only for an enumerated cloud call', () => {
  const { key } = testSigner(secret);
  const request = (method: string, path: string) => ({ method, url: new URL(`https://cloud.example${path}`), body: undefined, contentType: undefined, idempotencyKey: undefined });
  for (const [method, path] of [['GET', '/v1/cards'], ['HEAD', '/v1/cards/card_1'], ['POST', '/v1/authorizations/pw_1/revoke'], ['POST', '/v1/wallet/allocate'], ['PUT', '/v1/devices/identity-directory']]) {
    assert.ok('signature' in key.signUpstream(request(method as string, path as string), 1), `${method} ${path}`);
  }
  for (const [method, path] of [['DELETE', '/v1/cards'], ['POST', '/v1/devices'], ['POST', '/v1/sandbox/deposit'], ['GET', '/v1/cards/a/b'], ['GET', '/v2/cards'], ['POST', '/v1/cards'], ['GET', '/v1/cards/card.1']]) {
    assert.equal(key.signsCall(request(method as string, path as string)), false, `the key answers that it does not sign ${method} ${path}`);
    assertPurposeBroken(() => key.signUpstream(request(method as string, path as string), 1), /not a cloud call the device key signs/, `${method} ${path}`);
  }
  // The detail names the call's shape, never an id in it (a card number would be card data).
  assertPurposeBroken(() => key.signUpstream(request('GET', '/v1/4111111111111111/x'), 1), /GET \/v1\/:id\/x is not/);
});

test('an identity purpose only with an identity key and its own tag', () => {
  const { signer, key } = testSigner(secret);
  const identity = heldKey(new Uint8Array(32).fill(5), 'identity');
  const components = [{ id: '"@authority"', value: 'shop.example' }];
  const params = (tag: string) => [['created', 1], ['keyid', identity.keyId], ['tag', tag]] as const;
  assert.ok(signer.webBotAuth(identity, 'sig1', components, params('web-bot-auth')).signature.startsWith('sig1=:'));
  assert.ok(signer.directoryEntry(identity, 'binding0', components, params(HTTP_SIGNATURE_TAG.keyDirectory)).signature.startsWith('binding0=:'));
  assertPurposeBroken(() => signer.webBotAuth(identity, 'sig1', components, params(HTTP_SIGNATURE_TAG.keyDirectory)), /tag/);
  assertPurposeBroken(() => signer.registrationProof(identity, 'binding', components, params('web-bot-auth')), /tag/);
  assertPurposeBroken(() => signer.directoryEntry(identity, 'binding0', components, params('web-bot-auth')), /tag/);
  const deviceHandle = heldKey(secret, 'device');
  assertPurposeBroken(() => signer.webBotAuth(deviceHandle, 'sig1', components, params('web-bot-auth')), /not an identity key/);
  assertPurposeBroken(() => signer.webBotAuth(key, 'sig1', components, params('web-bot-auth')), /not an identity key/, 'the device key\'s public face is no handle');
  assertPurposeBroken(() => signer.webBotAuth({ ...identity }, 'sig1', components, params('web-bot-auth')), /not an identity key/, 'a copy of a handle signs nothing');
});

test('the device key the signer answers shows nothing secret', () => {
  const { signer } = testSigner(secret);
  const key = signer.deviceKey();
  const hex = Buffer.from(secret).toString('hex');
  for (const view of [JSON.stringify(key), inspect(key, { showHidden: true, depth: 5 }), JSON.stringify({ ...key }), Object.keys(key ?? {}).join(',')]) {
    assert.ok(!view.includes(hex) && !view.includes('3, 3, 3, 3'), view);
  }
});

test('a key being enrolled signs its own enrollment and nothing else', () => {
  const home = tempHome();
  ensureHome(home);
  const key = dataDirEnrollmentStore(home, undefined).newKey();
  const enrollment = (publicKeyX: string) => ({ method: 'POST', url: new URL('https://cloud.example/v1/devices'), body: new TextEncoder().encode(JSON.stringify({ setup_token: 'st', public_key: { kty: 'OKP', crv: 'Ed25519', x: publicKeyX } })), contentType: 'application/json', idempotencyKey: undefined });
  assert.ok('signature' in key.signUpstream(enrollment(Buffer.from(key.publicKey).toString('base64url')), 1));
  assert.equal(key.signsCall(enrollment('A'.repeat(43))), false);
  assertPurposeBroken(() => key.signUpstream(enrollment('A'.repeat(43)), 1), /^enrollment by .*naming it/);
  assertPurposeBroken(() => key.signUpstream({ ...enrollment(''), method: 'GET', url: new URL('https://cloud.example/v1/cards'), body: undefined }, 1), /^enrollment by /);
});

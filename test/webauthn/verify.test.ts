import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { verifyAssertion, verifyRegistration, type PasskeyCredential } from '../../src/webauthn/verify.js';
import { FakeAuthenticator, ORIGIN, RP_ID, type Algorithm, type Ceremony } from './fake-authenticator.js';
import { encodeCbor, type CborInput } from './cbor-encode.js';

const expectation = (challenge: Uint8Array) => ({ challenge, origin: ORIGIN, rpId: RP_ID });

function registered(authenticator: FakeAuthenticator): PasskeyCredential {
  const challenge = randomBytes(32);
  const result = verifyRegistration(authenticator.register({ challenge }), expectation(challenge));
  assert.ok(result.ok, result.ok ? '' : result.reason);
  return result.value;
}

for (const algorithm of ['ES256', 'EdDSA'] as Algorithm[]) {
  describe(`WebAuthn with an ${algorithm} passkey`, () => {
    it('registers a credential and verifies an assertion, moving the counter forward', () => {
      const authenticator = new FakeAuthenticator(algorithm);
      const credential = registered(authenticator);
      assert.equal(credential.alg, algorithm === 'ES256' ? -7 : -8);
      const challenge = randomBytes(32);
      const result = verifyAssertion(authenticator.assert({ challenge, signCount: 5 }), credential, expectation(challenge));
      assert.deepEqual(result, { ok: true, value: { signCount: 5 } });
    });

    const refusals: Array<[string, Partial<Ceremony>, RegExp]> = [
      ['another challenge', { challenge: new Uint8Array(32).fill(9) }, /challenge/],
      ['another origin', { origin: 'http://localhost:7723' }, /origin/],
      ['an origin on 127.0.0.1', { origin: 'http://127.0.0.1:7724' }, /origin/],
      ['another RP ID', { rpId: 'evil.example' }, /RP ID/],
      ['no user presence', { flags: 0x04 }, /present/],
      ['no user verification', { flags: 0x01 }, /verified/],
      ['a registration presented as an assertion', { type: 'webauthn.create' }, /type/],
      ['a cross-origin ceremony', { crossOrigin: true }, /cross-origin/],
    ];
    for (const [name, bend, reason] of refusals) {
      it(`refuses an assertion with ${name}`, () => {
        const authenticator = new FakeAuthenticator(algorithm);
        const credential = registered(authenticator);
        const challenge = randomBytes(32);
        const result = verifyAssertion(authenticator.assert({ challenge, signCount: 1, ...bend }), credential, expectation(challenge));
        assert.equal(result.ok, false);
        assert.match(result.ok ? '' : result.reason, reason);
      });
    }

    it('refuses a counter that does not move forward, and a signature by another key', () => {
      const authenticator = new FakeAuthenticator(algorithm);
      const credential = { ...registered(authenticator), signCount: 7 };
      const challenge = randomBytes(32);
      const replayed = verifyAssertion(authenticator.assert({ challenge, signCount: 7 }), credential, expectation(challenge));
      assert.match(replayed.ok ? '' : replayed.reason, /counter/);
      const impostor = new FakeAuthenticator(algorithm);
      const forged = verifyAssertion(impostor.assert({ challenge, signCount: 8 }), credential, expectation(challenge));
      assert.match(forged.ok ? '' : forged.reason, /signature/);
    });

    it('refuses every single flipped bit of an assertion', () => {
      const authenticator = new FakeAuthenticator(algorithm);
      const credential = registered(authenticator);
      const challenge = randomBytes(32);
      const good = authenticator.assert({ challenge, signCount: 3 });
      for (const part of ['clientDataJSON', 'authenticatorData', 'signature'] as const) {
        for (let index = 0; index < good[part].length; index += 1) {
          const bent = { ...good, [part]: Uint8Array.from(good[part]) };
          bent[part][index] = (bent[part][index] ?? 0) ^ 0x01;
          const result = verifyAssertion(bent, credential, expectation(challenge));
          // Flipping UV's neighbour flags (AT 0x40 → trailing data, ED 0x80) must fail too.
          assert.equal(result.ok, false, `${part}[${index}] flipped was accepted`);
        }
      }
    });
  });
}

describe('WebAuthn registration refusals', () => {
  it('refuses attestation other than none, and a missing credential', () => {
    const authenticator = new FakeAuthenticator('ES256');
    const challenge = randomBytes(32);
    const good = authenticator.register({ challenge });
    const packed = encodeCbor(new Map<CborInput, CborInput>([
      ['fmt', 'packed'], ['attStmt', new Map<CborInput, CborInput>()], ['authData', authenticator.authenticatorData({ challenge }, true)],
    ]));
    const result = verifyRegistration({ ...good, attestationObject: packed }, expectation(challenge));
    assert.match(result.ok ? '' : result.reason, /attestation "none"/);
    const noCredential = encodeCbor(new Map<CborInput, CborInput>([
      ['fmt', 'none'], ['attStmt', new Map<CborInput, CborInput>()], ['authData', authenticator.authenticatorData({ challenge }, false)],
    ]));
    const missing = verifyRegistration({ ...good, attestationObject: noCredential }, expectation(challenge));
    assert.match(missing.ok ? '' : missing.reason, /no credential/);
  });

  it('refuses an RSA or unknown COSE algorithm', () => {
    const authenticator = new FakeAuthenticator('ES256');
    authenticator.cosePublicKey.set(3, -257);
    const challenge = randomBytes(32);
    const result = verifyRegistration(authenticator.register({ challenge }), expectation(challenge));
    assert.match(result.ok ? '' : result.reason, /only ES256/);
  });

  it('refuses garbage without throwing', () => {
    const challenge = randomBytes(32);
    for (let seed = 0; seed < 200; seed += 1) {
      const attestationObject = randomBytes(seed % 90);
      const result = verifyRegistration({ clientDataJSON: new TextEncoder().encode('{"type":"webauthn.create"}'), attestationObject }, expectation(challenge));
      assert.equal(result.ok, false);
    }
  });
});

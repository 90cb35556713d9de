/**
 * signEd25519 derives the key's signing parts once and signs with noble's primitives. Ed25519 is
 * deterministic, so it must give exactly RFC 8032's signatures and exactly noble's own `sign`.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import * as ed from '@noble/ed25519';
import { verifyEd25519 } from '../../src/signer/ed25519-verify.js';
import { publicKeyOf, signEd25519 } from '../support/raw-signing.js';

const hex = (text: string) => Uint8Array.from(Buffer.from(text, 'hex'));

// RFC 8032 section 7.1, tests 1 to 3.
const RFC_8032 = [
  {
    secret: '9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60',
    public: 'd75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a',
    message: '',
    signature: 'e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b',
  },
  {
    secret: '4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb',
    public: '3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c',
    message: '72',
    signature: '92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00',
  },
  {
    secret: 'c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7',
    public: 'fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025',
    message: 'af82',
    signature: '6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a',
  },
];

test('RFC 8032 test vectors: the same signature, first and second time with the same key', () => {
  for (const vector of RFC_8032) {
    const secretKey = hex(vector.secret);
    assert.equal(Buffer.from(publicKeyOf(secretKey)).toString('hex'), vector.public);
    for (let time = 0; time < 2; time += 1) {
      const signature = signEd25519(hex(vector.message), secretKey);
      assert.equal(Buffer.from(signature).toString('hex'), vector.signature, `${vector.message || 'empty'} message, call ${time + 1}`);
      assert.ok(verifyEd25519(signature, hex(vector.message), hex(vector.public)));
    }
  }
});

test('byte for byte noble’s sign over random keys and messages of every length class', () => {
  for (let n = 0; n < 60; n += 1) {
    const secretKey = Uint8Array.from(randomBytes(32));
    const message = Uint8Array.from(randomBytes([0, 1, 31, 32, 33, 63, 64, 65, 127, 128, 600, 5000][n % 12] as number));
    assert.deepEqual(signEd25519(message, secretKey), ed.sign(message, secretKey));
    assert.deepEqual(signEd25519(message, secretKey), ed.sign(message, secretKey), 'again, with the key already expanded');
  }
});

test('a key changed in place signs as the new key, never with the old key’s remembered parts', () => {
  const secretKey = hex(RFC_8032[0]?.secret as string);
  const message = hex('af82');
  signEd25519(message, secretKey);
  secretKey.set(hex(RFC_8032[2]?.secret as string));
  assert.equal(Buffer.from(signEd25519(message, secretKey)).toString('hex'), RFC_8032[2]?.signature);
  secretKey.fill(0);
  assert.deepEqual(signEd25519(message, secretKey), ed.sign(message, new Uint8Array(32)));
});

test('a secret key of the wrong length is refused', () => {
  for (const length of [0, 31, 33, 64]) assert.throws(() => signEd25519(new Uint8Array(1), new Uint8Array(length)), RangeError, `${length} bytes`);
});

test('publicKeyOf is noble’s getPublicKey over RFC 8032’s keys and random ones', () => {
  for (const vector of RFC_8032) assert.equal(Buffer.from(publicKeyOf(hex(vector.secret))).toString('hex'), vector.public);
  for (let n = 0; n < 40; n += 1) {
    const secretKey = Uint8Array.from(randomBytes(32));
    assert.deepEqual(publicKeyOf(secretKey), ed.getPublicKey(secretKey));
  }
  for (const secretKey of [new Uint8Array(32), new Uint8Array(32).fill(0xff)]) assert.deepEqual(publicKeyOf(secretKey), ed.getPublicKey(secretKey));
  for (const length of [0, 31, 33, 64]) assert.throws(() => publicKeyOf(new Uint8Array(length)), RangeError, `${length} bytes`);
});

test('publicKeyOf leaves the secret key as it was', () => {
  const secretKey = Uint8Array.from(randomBytes(32));
  const copy = Uint8Array.from(secretKey);
  publicKeyOf(secretKey);
  assert.deepEqual(secretKey, copy);
});

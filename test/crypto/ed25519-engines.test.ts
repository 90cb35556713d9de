/**
 * The two verification engines (node:crypto's OpenSSL, noble's arithmetic) must accept exactly the
 * same signatures: RFC 8032's vectors, random ones, every one-bit change, and adversarial forms
 * built here from the curve itself (malleable S, non-canonical R and A, small-order and
 * mixed-order keys, R plus a small-order point). docs/decisions.md §39.1.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import * as ed from '@noble/ed25519';
import { sha512 } from '@noble/hashes/sha2.js';
import { ed25519Engine, verifyEd25519, verifyEd25519With, type Ed25519Engine } from '../../src/signer/ed25519-verify.js';
import { signEd25519 } from '../support/raw-signing.js';

type Point = InstanceType<typeof ed.Point>;
const ENGINES: Ed25519Engine[] = ['node:crypto', 'noble'];
const L = 2n ** 252n + 27742317777372353535851937790883648493n;
const P = 2n ** 255n - 19n;
const hex = (text: string) => Uint8Array.from(Buffer.from(text, 'hex'));
const le = (bytes: Uint8Array) => BigInt(`0x${Buffer.from(bytes).reverse().toString('hex') || '0'}`);
const le32 = (value: bigint) => Uint8Array.from(Buffer.from(value.toString(16).padStart(64, '0'), 'hex').reverse());
const join = (...parts: Uint8Array[]) => Uint8Array.from(Buffer.concat(parts));
const challenge = (R: Uint8Array, A: Uint8Array, message: Uint8Array) => le(sha512(join(R, A, message))) % L;
const times = (point: Point, scalar: bigint): Point => (scalar % L === 0n ? ed.Point.ZERO : point.multiply(scalar % L, false));

/** bothSay asserts the two engines give the same answer for a case, and returns it. */
function bothSay(signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array, name: string): boolean {
  const answers = ENGINES.map((engine) => verifyEd25519With(engine, signature, message, publicKey));
  assert.equal(answers[0], answers[1], `${name}: node:crypto says ${answers[0]}, noble says ${answers[1]}`);
  return answers[0] as boolean;
}

/** A key whose scalar the test knows: a = the clamped first half of SHA-512(seed) (RFC 8032 5.1.5). */
function knownKey(): { a: bigint; A: Point; publicKey: Uint8Array } {
  const half = sha512(randomBytes(32)).slice(0, 32);
  half[0] = (half[0] as number) & 248;
  half[31] = ((half[31] as number) & 127) | 64;
  const a = le(half) % L;
  const A = ed.Point.BASE.multiply(a);
  return { a, A, publicKey: A.toBytes() };
}

/** An order-8 point, found as L·Q for points Q decoded from random y (most carry a torsion part). */
function orderEightPoint(): Point {
  for (;;) {
    let Q: Point;
    try {
      Q = ed.Point.fromBytes(randomBytes(32), false);
    } catch {
      continue;
    }
    const T = Q.multiply(L - 1n, false).add(Q);
    if (!T.multiply(4n, false).is0()) return T;
  }
}

test('the engine is chosen once at start; this platform has node:crypto Ed25519', () => {
  const chosen = ed25519Engine();
  assert.equal(chosen.engine, process.env['LATCH_ED25519_ENGINE'] === 'noble' ? 'noble' : 'node:crypto', chosen.reason);
});

test('RFC 8032 section 7.1 vectors, and each with one bit changed anywhere, in both engines', () => {
  const vectors = [
    ['d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a', '', 'e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b'],
    ['3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c', '72', '92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00'],
    ['fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025', 'af82', '6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a'],
  ] as const;
  for (const [publicHex, messageHex, signatureHex] of vectors) {
    const [publicKey, message, signature] = [hex(publicHex), hex(messageHex), hex(signatureHex)];
    assert.equal(bothSay(signature, message, publicKey, `RFC 8032 ${publicHex}`), true);
    for (const [name, bytes] of [['signature', signature], ['public key', publicKey], ['message', message]] as const) {
      for (let bit = 0; bit < bytes.length * 8; bit += 1) {
        const changed = Uint8Array.from(bytes);
        changed[bit >> 3] = (changed[bit >> 3] as number) ^ (1 << (bit & 7));
        const args = name === 'signature' ? [changed, message, publicKey] : name === 'public key' ? [signature, message, changed] : [signature, changed, publicKey];
        assert.equal(bothSay(args[0] as Uint8Array, args[1] as Uint8Array, args[2] as Uint8Array, `${name} bit ${bit}`), false);
      }
    }
  }
});

test('random keys and messages: both engines accept the signature and verifyEd25519 agrees', () => {
  for (let n = 0; n < 40; n += 1) {
    const secret = Uint8Array.from(randomBytes(32));
    const message = Uint8Array.from(randomBytes([0, 1, 64, 600, 5000][n % 5] as number));
    const publicKey = ed.getPublicKey(secret);
    const signature = signEd25519(message, secret);
    assert.equal(bothSay(signature, message, publicKey, `random ${n}`), true);
    assert.equal(verifyEd25519(signature, message, publicKey), true);
    assert.equal(verifyEd25519(signature.subarray(1), message, publicKey), false, 'a short signature');
    assert.equal(verifyEd25519(signature, message, publicKey.subarray(1)), false, 'a short key');
  }
});

test('a malleable S (S + L, the same equation mod L) is refused by both', () => {
  const secret = Uint8Array.from(randomBytes(32));
  const message = Uint8Array.from(randomBytes(40));
  const signature = signEd25519(message, secret);
  const S = le(signature.subarray(32));
  assert.ok(S + L < 2n ** 256n);
  assert.equal(bothSay(join(signature.subarray(0, 32), le32(S + L)), message, ed.getPublicKey(secret), 'S + L'), false);
});

test('a non-canonical R (the identity as y = p + 1, or with the sign bit) with S = k·a, which a lax decoder accepts, is refused by both', () => {
  const { a, publicKey } = knownKey();
  const message = Uint8Array.from(randomBytes(20));
  for (const R of [le32(P + 1n), join(le32(1n).subarray(0, 31), Uint8Array.of(0x80))]) {
    const S = (challenge(R, publicKey, message) * a) % L;
    assert.equal(bothSay(join(R, le32(S)), message, publicKey, `R ${Buffer.from(R).toString('hex')}`), false);
  }
});

test('every small-order key (derived from the curve), and the identity non-canonically encoded, is refused by both with a signature the equation accepts', () => {
  const T = orderEightPoint();
  const smallOrder = Array.from({ length: 8 }, (_, index) => times(T, BigInt(index)));
  const encodings = [...smallOrder.map((point) => point.toBytes()), le32(P + 1n), le32(P - 1n + 2n ** 255n)];
  assert.equal(new Set(encodings.map((bytes) => Buffer.from(bytes).toString('hex'))).size, 10, 'eight small-order points, and two more encodings');
  const message = Uint8Array.from(randomBytes(32));
  for (const publicKey of encodings) {
    // R = [s]B − [t]A with k ≡ t on A's order: the cofactorless equation holds for this key.
    const A = (() => {
      try {
        return ed.Point.fromBytes(publicKey, true);
      } catch {
        return ed.Point.ZERO;
      }
    })();
    let found = false;
    for (let attempt = 0; attempt < 400 && !found; attempt += 1) {
      const s = le(randomBytes(32)) % L;
      const t = BigInt(attempt % 8);
      const R = times(ed.Point.BASE, s).subtract(times(A, t)).toBytes();
      if (!times(A, challenge(R, publicKey, message)).equals(times(A, t))) continue;
      found = true;
      assert.ok(times(ed.Point.BASE, s).subtract(times(A, challenge(R, publicKey, message))).equals(ed.Point.fromBytes(R)), 'the equation holds');
      assert.equal(bothSay(join(R, le32(s)), message, publicKey, `small-order key ${Buffer.from(publicKey).toString('hex')}`), false);
    }
    assert.ok(found, `a signature for ${Buffer.from(publicKey).toString('hex')} was built`);
  }
});

test('R plus a small-order point: noble\'s own cofactored verify accepts it, both engines refuse it', () => {
  const { a, publicKey } = knownKey();
  const T = orderEightPoint();
  const message = Uint8Array.from(randomBytes(24));
  const r = le(randomBytes(32)) % L;
  const R = times(ed.Point.BASE, r).add(T).toBytes();
  const S = (r + challenge(R, publicKey, message) * a) % L;
  const signature = join(R, le32(S));
  assert.equal(ed.verify(signature, message, publicKey, { zip215: false }), true, 'noble cofactored accepts');
  assert.equal(bothSay(signature, message, publicKey, 'R + T'), false);
});

test('a mixed-order key (aB + T): both engines give the same answer to signatures the cofactorless equation accepts and to honest ones', () => {
  const { a, A } = knownKey();
  const T = orderEightPoint();
  const mixed = A.add(T);
  const publicKey = mixed.toBytes();
  const message = Uint8Array.from(randomBytes(16));
  let accepted = 0;
  for (let attempt = 0; attempt < 64; attempt += 1) {
    const r = le(randomBytes(32)) % L;
    const t = BigInt(attempt % 8);
    const R = times(ed.Point.BASE, r).subtract(times(T, t)).toBytes();
    const k = challenge(R, publicKey, message);
    const S = (r + k * a) % L;
    if (bothSay(join(R, le32(S)), message, publicKey, `mixed-order attempt ${attempt}`)) accepted += 1;
  }
  assert.ok(accepted > 0, 'some were accepted (k ≡ t mod 8), so the agreement covered acceptance too');
});

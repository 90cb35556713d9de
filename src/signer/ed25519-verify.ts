/**
 * Ed25519 verification (strict RFC 8032, cofactorless). It is in the signer's folder because this
 * folder is the one place noble's Ed25519 is imported; it holds and signs nothing, and anything may
 * import it (the sandbox, the client, the evidence verifier, the passkey check). The signer's own
 * code never hashes through noble's shared `hashes` setting installed here
 * (signer/signing-boundary.test.ts).
 *
 * Two engines compute one predicate (docs/decisions.md §39.1): the platform's OpenSSL through
 * node:crypto (about 16× faster), and noble's point arithmetic where OpenSSL has no Ed25519 (a
 * FIPS-mode build refuses it). Which one runs is decided once, when this module loads, by verifying
 * a known vector; `latch doctor` reports it. Both accept exactly when
 *
 *   - S < L (no malleable S), A and R are canonical encodings (y < p, and no x = 0 with the sign
 *     bit set), A is not one of the eight small-order points, and
 *   - the encoding of [S]B − [k]A equals R byte for byte, k = SHA-512(R ‖ A ‖ M) mod L
 *     (the cofactorless equation OpenSSL uses; noble's own `verify` is cofactored and would also
 *     accept R plus a small-order point, so the fallback computes the equation itself).
 *
 * The encoding checks run in front of either engine, so neither engine's leniency decides them.
 */
import { createPublicKey, verify as platformVerify, type KeyObject } from 'node:crypto';
import * as ed from '@noble/ed25519';
import { sha512 } from '@noble/hashes/sha2.js';
import { ED25519_PUBLIC_KEY_BYTES, ED25519_SIGNATURE_BYTES } from '../crypto/ed25519.js';

// noble-ed25519 v3 reads this synchronous SHA-512 wherever it hashes (tests sign through it).
ed.hashes.sha512 = sha512;

/** The engines that can verify: OpenSSL through node:crypto, or noble's pure-JavaScript arithmetic. */
export type Ed25519Engine = 'node:crypto' | 'noble';

/** The group order L and the field prime p of Ed25519. */
const L = 2n ** 252n + 27742317777372353535851937790883648493n;
const P = 2n ** 255n - 19n;
/** Encodings (y, little-endian, sign bit clear) of the small-order points whose x is not 0. */
const SMALL_ORDER_Y = new Set([
  0n, // order 4
  0x7a03ac9277fdc74ec6cc392cfa53202a0f67100d760b3cba4fd84d3d706a17c7n, // order 8
  P - 0x7a03ac9277fdc74ec6cc392cfa53202a0f67100d760b3cba4fd84d3d706a17c7n, // order 8
]);

function littleEndian(bytes: Uint8Array): bigint {
  let value = 0n;
  for (let index = bytes.length - 1; index >= 0; index -= 1) value = (value << 8n) | BigInt(bytes[index] as number);
  return value;
}

/**
 * canonicalPoint reports whether a 32-byte point encoding is canonical (y < p; x = 0 only with
 * the sign bit clear) and, when smallOrderToo, that it is not one of the eight small-order points
 * (y = 1 and y = p − 1 have x = 0; the other six are listed above). Curve membership is left to
 * the engine; an off-curve encoding fails in both.
 */
function canonicalPoint(encoding: Uint8Array, smallOrderToo: boolean): boolean {
  const signBit = ((encoding[31] as number) & 0x80) !== 0;
  const y = littleEndian(encoding) & (2n ** 255n - 1n);
  if (y >= P) return false;
  const xIsZero = y === 1n || y === P - 1n;
  if (xIsZero && signBit) return false;
  if (smallOrderToo && (xIsZero || SMALL_ORDER_Y.has(y))) return false;
  return true;
}

/** encodingsAllowed is the engine-independent half of the predicate: lengths, S < L, canonical R and A. */
function encodingsAllowed(signature: Uint8Array, publicKey: Uint8Array): boolean {
  if (signature.length !== ED25519_SIGNATURE_BYTES || publicKey.length !== ED25519_PUBLIC_KEY_BYTES) return false;
  if (littleEndian(signature.subarray(32)) >= L) return false;
  return canonicalPoint(signature.subarray(0, 32), false) && canonicalPoint(publicKey, true);
}

/** The DER prefix of an Ed25519 SubjectPublicKeyInfo (RFC 8410); the 32 key bytes follow it. */
const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');
/** Keys verified recently, imported once each (a daemon sees a handful; the cap bounds a flood). */
const platformKeys = new Map<string, KeyObject>();
const PLATFORM_KEYS_MAX = 1024;

function platformKey(publicKey: Uint8Array): KeyObject {
  const id = Buffer.from(publicKey).toString('base64');
  let key = platformKeys.get(id);
  if (key === undefined) {
    key = createPublicKey({ key: Buffer.concat([SPKI_PREFIX, publicKey]), format: 'der', type: 'spki' });
    if (platformKeys.size >= PLATFORM_KEYS_MAX) platformKeys.delete(platformKeys.keys().next().value as string);
    platformKeys.set(id, key);
  }
  return key;
}

/** The equation by OpenSSL (it compares the encoding of [S]B − [k]A with R). Throws where OpenSSL has no Ed25519. */
function platformEquation(signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): boolean {
  return platformVerify(null, message, platformKey(publicKey), signature);
}

/** The same equation with noble's point arithmetic: encode([S]B − [k]A) must equal R. */
function nobleEquation(signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): boolean {
  const A = ed.Point.fromBytes(publicKey, false);
  const R = signature.subarray(0, 32);
  const k = littleEndian(sha512(concat(R, publicKey, message))) % L;
  const S = littleEndian(signature.subarray(32));
  const expected = ed.Point.BASE.multiply(S, false).subtract(A.multiply(k, false)).toBytes();
  let difference = 0;
  for (let index = 0; index < 32; index += 1) difference |= (expected[index] as number) ^ (R[index] as number);
  return difference === 0;
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const joined = new Uint8Array(parts.reduce((total, part) => total + part.length, 0));
  let at = 0;
  for (const part of parts) {
    joined.set(part, at);
    at += part.length;
  }
  return joined;
}

const EQUATIONS: Record<Ed25519Engine, typeof nobleEquation> = { 'node:crypto': platformEquation, noble: nobleEquation };

/**
 * verifyEd25519With verifies with the engine named, whatever was chosen at start (the tests run
 * both engines on the same vectors; nothing else should need it). Never throws.
 */
export function verifyEd25519With(engine: Ed25519Engine, signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): boolean {
  if (!encodingsAllowed(signature, publicKey)) return false;
  try {
    return EQUATIONS[engine](signature, message, publicKey);
  } catch {
    return false;
  }
}

// RFC 8032 section 7.1, test 2 (one-byte message): the probe of the platform's engine.
const PROBE = {
  publicKey: Buffer.from('3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c', 'hex'),
  message: Buffer.from('72', 'hex'),
  signature: Buffer.from('92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00', 'hex'),
};

/**
 * chooseEngine runs once, when this module loads: node:crypto if it accepts the known vector and
 * refuses it with one bit changed, noble otherwise (any throw, any wrong answer).
 * LATCH_ED25519_ENGINE=noble forces the fallback (to compare engines, or to try the fallback path).
 */
function chooseEngine(): { engine: Ed25519Engine; reason: string } {
  if (process.env['LATCH_ED25519_ENGINE'] === 'noble') return { engine: 'noble', reason: 'LATCH_ED25519_ENGINE=noble' };
  try {
    const tampered = Buffer.from(PROBE.message);
    tampered[0] = (tampered[0] as number) ^ 1;
    const accepts = platformEquation(PROBE.signature, PROBE.message, PROBE.publicKey);
    const refuses = !platformEquation(PROBE.signature, tampered, PROBE.publicKey);
    if (accepts && refuses) return { engine: 'node:crypto', reason: 'the platform verified RFC 8032 test 2' };
    return { engine: 'noble', reason: 'the platform gave a wrong answer on RFC 8032 test 2' };
  } catch (error) {
    return { engine: 'noble', reason: `the platform has no Ed25519 (${error instanceof Error ? error.message : String(error)})` };
  }
}

const CHOSEN = chooseEngine();

/** ed25519Engine names the engine chosen at start, and why (for `latch doctor`). */
export function ed25519Engine(): { engine: Ed25519Engine; reason: string } {
  return { ...CHOSEN };
}

/**
 * verifyEd25519 reports whether signature is valid for message under publicKey. It uses strict
 * RFC 8032 / FIPS 186-5 rules (not ZIP-215; cofactorless; no small-order key) and never throws on
 * malformed input.
 */
export function verifyEd25519(signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): boolean {
  return verifyEd25519With(CHOSEN.engine, signature, message, publicKey);
}

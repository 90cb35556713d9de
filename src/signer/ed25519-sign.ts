/**
 * Ed25519 signing (RFC 8032 5.1.6) with noble's own primitives, the key expanded once per key the
 * signer holds (docs/decisions.md §16.2, §28.1). Only the signer folder imports this file.
 */
import * as ed from '@noble/ed25519';
import { sha512 } from '@noble/hashes/sha2.js';

/** An Ed25519 secret key (the seed) is 32 bytes; only the signer holds one. */
export const ED25519_SECRET_KEY_BYTES = 32;

/** generateSecretKey returns 32 bytes from the operating system CSPRNG (via crypto.getRandomValues). */
export function generateSecretKey(): Uint8Array {
  return ed.utils.randomSecretKey();
}

/** The parts of a secret key that signing uses (RFC 8032 5.1.5), derived once per held key. */
export interface ExpandedKey {
  readonly prefix: Uint8Array;
  readonly scalar: bigint;
  readonly publicKey: Uint8Array;
}

const ORDER = ed.Point.CURVE().n;

/**
 * expandKey derives the signing parts of a 32-byte secret key (RFC 8032 5.1.5): the clamped scalar
 * s and the prefix from SHA-512(seed), and A = [s]B. The seed is hashed with this file's own
 * SHA-512 import, never through noble's shared `hashes` setting, which other code can assign
 * (src/verify/ installs it for noble's verify).
 */
export function expandKey(secret: Uint8Array): ExpandedKey {
  if (secret.length !== ED25519_SECRET_KEY_BYTES) throw new RangeError('an Ed25519 secret key is 32 bytes');
  const hashed = sha512(secret);
  const scalar = clampedScalar(hashed);
  const prefix = hashed.slice(32, 64);
  hashed.fill(0);
  return { prefix, scalar, publicKey: ed.Point.BASE.multiply(scalar).toBytes() };
}

/** clampedScalar is s of RFC 8032 5.1.5: the first 32 bytes of SHA-512(seed), clamped, modulo the group order. */
function clampedScalar(hashed: Uint8Array): bigint {
  const head = hashed.slice(0, 32);
  head[0] = (head[0] as number) & 248;
  head[31] = ((head[31] as number) & 127) | 64;
  const scalar = ed.etc.mod(littleEndianNumber(head), ORDER);
  head.fill(0);
  return scalar;
}

/** littleEndianNumber reads bytes as a little-endian unsigned integer. */
function littleEndianNumber(bytes: Uint8Array): bigint {
  let value = 0n;
  for (let index = bytes.length - 1; index >= 0; index -= 1) value = (value << 8n) | BigInt(bytes[index] as number);
  return value;
}

/** littleEndian32 writes a number below 2^256 as 32 little-endian bytes. */
function littleEndian32(value: bigint): Uint8Array {
  const bytes = new Uint8Array(32);
  let rest = value;
  for (let index = 0; index < 32; index += 1) {
    bytes[index] = Number(rest & 0xffn);
    rest >>= 8n;
  }
  return bytes;
}

/** 2⁻¹ modulo the group order, and 2B: s·B = (s·2⁻¹)·(2B), since B has that order. */
const HALF = (ORDER + 1n) / 2n;
const TWICE_BASE = ed.Point.BASE.double();

/**
 * publicKeyOf derives the public key of a 32-byte secret key (RFC 8032 5.1.5): A = [s]B for the
 * clamped scalar s of SHA-512(seed). It multiplies 2B by s·2⁻¹ instead of B by s: the same point,
 * but noble multiplies any point other than B with its constant-time ladder, where a multiple of
 * B first builds a table of 4,224 precomputed points (25–55 ms and about 12 MiB, measured in the
 * daemon's start). The daemon derives its public key at start, to report it and to check
 * config.json names it; the table is then built at the first signature, which needs it
 * (docs/decisions.md §16.4). A test holds the result to RFC 8032's vectors and to noble's
 * getPublicKey.
 */
export function publicKeyOf(secret: Uint8Array): Uint8Array {
  if (secret.length !== ED25519_SECRET_KEY_BYTES) throw new RangeError('an Ed25519 secret key is 32 bytes');
  const hashed = sha512(secret);
  const scalar = clampedScalar(hashed);
  hashed.fill(0);
  return TWICE_BASE.multiply(ed.etc.mod(scalar * HALF, ORDER)).toBytes();
}

/**
 * signExpanded signs message with an expanded key (RFC 8032 5.1.6, pure Ed25519):
 * r = SHA-512(prefix || M) mod L, R = [r]B, k = SHA-512(R || A || M) mod L, S = (r + k·s) mod L.
 * Ed25519 is deterministic, so the bytes are exactly noble's `sign` (a test compares them over
 * random keys and messages, and with RFC 8032's vectors).
 */
export function signExpanded(message: Uint8Array, key: ExpandedKey): Uint8Array {
  const r = ed.etc.mod(littleEndianNumber(sha512(ed.etc.concatBytes(key.prefix, message))), ORDER);
  // multiply() refuses 0, as noble's sign does: a zero nonce would mean a broken SHA-512.
  const encodedR = ed.Point.BASE.multiply(r).toBytes();
  const k = ed.etc.mod(littleEndianNumber(sha512(ed.etc.concatBytes(encodedR, key.publicKey, message))), ORDER);
  return ed.etc.concatBytes(encodedR, littleEndian32(ed.etc.mod(r + k * key.scalar, ORDER)));
}

/**
 * P-256 public keys as JWKs and ES256 verification (RFC 7518 §3.4), on node:crypto. Used by AP2
 * mandates (docs/ap2.md): the mandate key's public half, the agent key an open mandate binds by
 * `cnf`, and the checks of a signed mandate. Key generation and signing live in src/signer
 * (p256-scalar.ts, ap2-mandate.ts); nothing here holds a private key.
 */
import { createHash, createPublicKey, verify, type KeyObject } from 'node:crypto';
import { fromBase64Url } from '../crypto/base64url.js';

/** A P-256 scalar (`d`) and each public coordinate are 32 bytes. */
export const P256_SCALAR_BYTES = 32;
/** An ES256 signature is r||s, 64 bytes (not DER: JWS needs the raw form). */
export const ES256_SIGNATURE_BYTES = 64;

/** The public JWK of a P-256 key in the one form Latch emits: exactly these four members. */
export interface P256PublicJwk {
  kty: 'EC';
  crv: 'P-256';
  x: string;
  y: string;
}

/** p256Thumbprint is the RFC 7638 thumbprint of a P-256 public key: its key id. */
export function p256Thumbprint(jwk: P256PublicJwk): string {
  // RFC 7638 §3.2: the required members only, in lexicographic order, no whitespace.
  const canonical = `{"crv":"P-256","kty":"EC","x":"${jwk.x}","y":"${jwk.y}"}`;
  return createHash('sha256').update(canonical, 'utf8').digest('base64url');
}

/** Why an untrusted value is not a P-256 public JWK, in words fit for an error message. */
export type P256JwkRefusal = string;

/**
 * p256PublicJwkFromUntrusted checks an untrusted JWK and returns it normalized to its four members,
 * or the reason it is refused: not an object, a private part (`d`), another key type or curve, an
 * `alg` other than ES256, a coordinate that is not 32 base64url bytes, or a point off the curve.
 * Other members (`kid`, `use`, `key_ops`, `ext`) are dropped: AP2's verifier forbids unknown ones.
 */
export function p256PublicJwkFromUntrusted(value: unknown): { jwk: P256PublicJwk } | { refused: P256JwkRefusal } {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { refused: 'it must be a JWK object' };
  const jwk = value as Record<string, unknown>;
  if (Object.hasOwn(jwk, 'd')) return { refused: 'it carries a private key (d); send the public key only' };
  if (jwk['kty'] !== 'EC') return { refused: 'kty must be EC' };
  if (jwk['crv'] !== 'P-256') return { refused: 'crv must be P-256' };
  if (Object.hasOwn(jwk, 'alg') && jwk['alg'] !== 'ES256') return { refused: 'alg, when given, must be ES256' };
  for (const name of ['x', 'y'] as const) {
    const coordinate = jwk[name];
    if (typeof coordinate !== 'string' || fromBase64Url(coordinate)?.length !== P256_SCALAR_BYTES) return { refused: `${name} must be 32 bytes of base64url` };
  }
  const normalized: P256PublicJwk = { kty: 'EC', crv: 'P-256', x: jwk['x'] as string, y: jwk['y'] as string };
  try {
    // node:crypto refuses a point that is not on the curve.
    createPublicKey({ key: { ...normalized }, format: 'jwk' });
  } catch {
    return { refused: 'the point is not on the P-256 curve' };
  }
  return { jwk: normalized };
}

/** p256PublicKeyObject makes the node:crypto key of a checked public JWK. */
export function p256PublicKeyObject(jwk: P256PublicJwk): KeyObject {
  return createPublicKey({ key: { kty: 'EC', crv: 'P-256', x: jwk.x, y: jwk.y }, format: 'jwk' });
}

/**
 * verifyEs256 reports whether `signature` (raw r||s) is a valid ES256 signature of the ASCII
 * signing input under the key.
 */
export function verifyEs256(signingInput: string, signature: Uint8Array, key: KeyObject): boolean {
  if (signature.length !== ES256_SIGNATURE_BYTES) return false;
  return verify('sha256', Buffer.from(signingInput, 'ascii'), { key, dsaEncoding: 'ieee-p1363' }, signature);
}

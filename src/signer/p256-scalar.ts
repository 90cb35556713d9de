/**
 * The mandate key's private P-256 scalar: made and turned into its public JWK only here, in the
 * signer (docs/decisions.md §28, §32). src/ap2/p256.ts keeps the public half: JWKs and ES256
 * verification.
 */
import { createECDH, generateKeyPairSync } from 'node:crypto';
import { fromBase64Url, toBase64Url } from '../crypto/base64url.js';
import { P256_SCALAR_BYTES, type P256PublicJwk } from '../ap2/p256.js';

/**
 * generateP256Scalar makes a new private scalar from node:crypto's key generator (never from raw
 * random bytes: it must be below the group order). The caller stores it and hands it to the signer.
 */
export function generateP256Scalar(): Uint8Array {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const d = privateKey.export({ format: 'jwk' }).d;
  const bytes = d === undefined ? undefined : fromBase64Url(d);
  if (bytes?.length !== P256_SCALAR_BYTES) throw new Error('generateP256Scalar: node:crypto exported no 32-byte d');
  return bytes;
}

/** p256PublicJwkOfScalar derives the public JWK of a private scalar. */
export function p256PublicJwkOfScalar(d: Uint8Array): P256PublicJwk {
  const ecdh = createECDH('prime256v1');
  ecdh.setPrivateKey(d);
  // Uncompressed point: 0x04 || x || y.
  const point = ecdh.getPublicKey();
  return { kty: 'EC', crv: 'P-256', x: toBase64Url(point.subarray(1, 33)), y: toBase64Url(point.subarray(33, 65)) };
}

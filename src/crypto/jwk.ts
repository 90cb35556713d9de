import { sha256 } from '@noble/hashes/sha2.js';
import { toBase64Url, utf8 } from './base64url.js';

/** The public JWK of an Ed25519 key (RFC 8037). Never carries `d`. */
export interface Ed25519PublicJwk {
  kty: 'OKP';
  crv: 'Ed25519';
  x: string;
}

/** publicJwk returns the RFC 8037 JWK of a raw 32-byte Ed25519 public key. */
export function publicJwk(publicKey: Uint8Array): Ed25519PublicJwk {
  return { kty: 'OKP', crv: 'Ed25519', x: toBase64Url(publicKey) };
}

/** jwkThumbprint is the RFC 7638 thumbprint: base64url(SHA-256) of the canonical member JSON. */
export function jwkThumbprint(jwk: Ed25519PublicJwk): string {
  // RFC 7638 §3.2: required members only, lexicographic order, no whitespace.
  const canonical = `{"crv":"${jwk.crv}","kty":"${jwk.kty}","x":"${jwk.x}"}`;
  return toBase64Url(sha256(utf8(canonical)));
}

/** keyIdOf is the key_id of a raw public key: its JWK thumbprint. */
export function keyIdOf(publicKey: Uint8Array): string {
  return jwkThumbprint(publicJwk(publicKey));
}

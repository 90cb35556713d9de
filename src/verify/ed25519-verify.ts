/**
 * Ed25519 verification (strict RFC 8032) and the public keys it takes from untrusted JWKs. The audited
 * core never verifies: the sandbox, the client, the evidence verifier and the passkey check do.
 */
import * as ed from '@noble/ed25519';
import { sha512 } from '@noble/hashes/sha2.js';
import { fromBase64Url } from '../crypto/base64url.js';
import { ED25519_PUBLIC_KEY_BYTES, ED25519_SIGNATURE_BYTES } from '../crypto/ed25519.js';

// noble-ed25519 v3 needs a synchronous SHA-512 to offer synchronous verify.
ed.hashes.sha512 = sha512;

/**
 * verifyEd25519 reports whether signature is valid for message under publicKey. It uses strict
 * RFC 8032 / FIPS 186-5 rules (not ZIP-215) and never throws on malformed input.
 */
export function verifyEd25519(signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): boolean {
  if (signature.length !== ED25519_SIGNATURE_BYTES || publicKey.length !== ED25519_PUBLIC_KEY_BYTES) return false;
  try {
    return ed.verify(signature, message, publicKey, { zip215: false });
  } catch {
    return false;
  }
}

/** publicKeyFromJwk validates an untrusted JWK and returns the raw key, or undefined. */
export function publicKeyFromJwk(value: unknown): Uint8Array | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const jwk = value as Record<string, unknown>;
  if (jwk['kty'] !== 'OKP' || jwk['crv'] !== 'Ed25519' || typeof jwk['x'] !== 'string') return undefined;
  if ('d' in jwk) return undefined;
  const raw = fromBase64Url(jwk['x']);
  return raw?.length === ED25519_PUBLIC_KEY_BYTES ? raw : undefined;
}

/** An Ed25519 public key taken from an untrusted JWK (RFC 8037), for the verifiers. */
import { fromBase64Url } from '../crypto/base64url.js';
import { ED25519_PUBLIC_KEY_BYTES } from '../crypto/ed25519.js';

/** publicKeyFromJwk validates an untrusted JWK and returns the raw key, or undefined. */
export function publicKeyFromJwk(value: unknown): Uint8Array | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const jwk = value as Record<string, unknown>;
  if (jwk['kty'] !== 'OKP' || jwk['crv'] !== 'Ed25519' || typeof jwk['x'] !== 'string') return undefined;
  if ('d' in jwk) return undefined;
  const raw = fromBase64Url(jwk['x']);
  return raw?.length === ED25519_PUBLIC_KEY_BYTES ? raw : undefined;
}

/**
 * Verification of Latch's signatures with node:crypto only, independent of src/crypto: the
 * "standard JOSE" check of decisions §5 (a compact EdDSA JWS verified with the device's public
 * JWK) and the RFC 7638 thumbprint.
 */
import { createHash, createPublicKey, verify } from 'node:crypto';

export interface PublicJwk {
  kty: 'OKP';
  crv: 'Ed25519';
  x: string;
}

export interface VerifiedJws {
  header: Record<string, unknown>;
  payload: Record<string, unknown>;
}

/** rfc7638Thumbprint is base64url(SHA-256) of the JWK's required members in lexicographic order. */
export function rfc7638Thumbprint(jwk: PublicJwk): string {
  const canonical = JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x });
  return createHash('sha256').update(canonical, 'utf8').digest('base64url');
}

/** verifyCompactJws verifies an EdDSA compact JWS with a public JWK, or throws. */
export function verifyCompactJws(jws: string, jwk: PublicJwk): VerifiedJws {
  const parts = jws.split('.');
  if (parts.length !== 3) throw new Error('not a compact JWS');
  const [headerPart, payloadPart, signaturePart] = parts as [string, string, string];
  const key = createPublicKey({ key: { ...jwk }, format: 'jwk' });
  const ok = verify(null, Buffer.from(`${headerPart}.${payloadPart}`, 'ascii'), key, Buffer.from(signaturePart, 'base64url'));
  if (!ok) throw new Error('the JWS signature does not verify');
  return {
    header: JSON.parse(Buffer.from(headerPart, 'base64url').toString('utf8')) as Record<string, unknown>,
    payload: JSON.parse(Buffer.from(payloadPart, 'base64url').toString('utf8')) as Record<string, unknown>,
  };
}

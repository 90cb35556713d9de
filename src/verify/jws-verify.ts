/** Compact JWS (EdDSA, RFC 8037) decoding and verification; the signer makes them (src/signer/compact-jws.ts). */
import { fromBase64Url, utf8 } from '../crypto/base64url.js';
import { verifyEd25519 } from '../signer/ed25519-verify.js';

export type JwsDecodeFailure = 'malformed' | 'unsupported_algorithm' | 'bad_signature';

export interface DecodedJws {
  header: Record<string, unknown>;
  payload: Record<string, unknown>;
  kid: string;
}

/**
 * decodeJwsUnverified parses a compact JWS far enough to read `kid`, so the verifier can find the
 * key record. Nothing in the result may be trusted until verifyJwsCompact succeeds.
 */
export function decodeJwsUnverified(jws: string): DecodedJws | JwsDecodeFailure {
  if (typeof jws !== 'string' || jws.length > 16_384) return 'malformed';
  const parts = jws.split('.');
  if (parts.length !== 3) return 'malformed';
  const header = decodeJsonSegment(parts[0] as string);
  const payload = decodeJsonSegment(parts[1] as string);
  if (header === undefined || payload === undefined) return 'malformed';
  // The algorithm is fixed by the key record (Ed25519); the header must agree, and no extension
  // header (crit, b64=false, embedded keys) is honoured.
  if (header['alg'] !== 'EdDSA') return 'unsupported_algorithm';
  if ('crit' in header || 'jwk' in header || 'jku' in header || 'x5u' in header || 'b64' in header) return 'unsupported_algorithm';
  if (typeof header['kid'] !== 'string') return 'malformed';
  return { header, payload, kid: header['kid'] };
}

/**
 * verifyJwsCompact checks a compact JWS against a known Ed25519 public key and returns the
 * decoded header and payload, or the reason it failed.
 */
export function verifyJwsCompact(jws: string, publicKey: Uint8Array): DecodedJws | JwsDecodeFailure {
  const decoded = decodeJwsUnverified(jws);
  if (typeof decoded === 'string') return decoded;
  const lastDot = jws.lastIndexOf('.');
  const signature = fromBase64Url(jws.slice(lastDot + 1));
  if (signature === undefined) return 'malformed';
  if (!verifyEd25519(signature, utf8(jws.slice(0, lastDot)), publicKey)) return 'bad_signature';
  return decoded;
}

function decodeJsonSegment(segment: string): Record<string, unknown> | undefined {
  const bytes = fromBase64Url(segment);
  if (bytes === undefined) return undefined;
  try {
    const value: unknown = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

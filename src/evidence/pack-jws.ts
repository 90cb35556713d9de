/**
 * The compact JWS of a pack and of its window, strictly read (docs/decisions.md §22). A pack is
 * larger than the 16 KiB crypto/jws.ts allows for a window, and `verify` must also see the exact
 * payload text (to compare it with the pack's members byte for byte) and refuse a signature
 * whose base64url is not canonical (two texts for one signature would let a byte change pass).
 */
import { fromBase64Url, toBase64Url, utf8 } from '../crypto/base64url.js';
import { verifyEd25519 } from '../signer/ed25519-verify.js';

/** A JWS that verified: its header and the exact payload text. */
export interface VerifiedCompact {
  header: Record<string, unknown>;
  payloadText: string;
}

/**
 * verifyCompact checks a compact EdDSA JWS against a raw public key and returns its header and
 * payload text, or a sentence saying what is wrong. Every segment must be canonical base64url.
 */
export function verifyCompact(jws: unknown, publicKey: Uint8Array): VerifiedCompact | string {
  if (typeof jws !== 'string') return 'is not a compact JWS';
  const parts = jws.split('.');
  if (parts.length !== 3) return 'is not a compact JWS (three segments)';
  const decoded = parts.map((part) => canonicalBase64Url(part));
  const [headerBytes, payloadBytes, signature] = decoded;
  if (headerBytes === undefined || payloadBytes === undefined || signature === undefined) return 'has a segment that is not canonical base64url';
  const headerText = utf8Text(headerBytes);
  const payloadText = utf8Text(payloadBytes);
  if (headerText === undefined || payloadText === undefined) return 'has a segment that is not UTF-8';
  let header: unknown;
  try {
    header = JSON.parse(headerText);
  } catch {
    return 'has a header that is not JSON';
  }
  if (typeof header !== 'object' || header === null || Array.isArray(header)) return 'has a header that is not a JSON object';
  const fields = header as Record<string, unknown>;
  if (fields['alg'] !== 'EdDSA') return 'is not EdDSA';
  if ('crit' in fields || 'jwk' in fields || 'jku' in fields || 'x5u' in fields || 'b64' in fields) return 'has a header extension Latch never writes';
  const signingInput = jws.slice(0, jws.lastIndexOf('.'));
  if (!verifyEd25519(signature, utf8(signingInput), publicKey)) return 'does not verify with the pack\'s key';
  return { header: fields, payloadText };
}

/** The pack's device key, read from its JWKS: the raw Ed25519 public key and its RFC 7638 thumbprint. */
export interface PackKey {
  publicKey: Uint8Array;
  kid: string;
}

/**
 * verifyByPackKey verifies a JWS the device key made (the pack, its window, an x402 receipt): it
 * verifies under key, names key's id and has the purpose's typ; else a sentence that begins with `what`.
 */
export function verifyByPackKey(jws: unknown, key: PackKey, typ: string, what: string): VerifiedCompact | string {
  const signed = verifyCompact(jws, key.publicKey);
  if (typeof signed === 'string') return `${what} ${signed}`;
  if (signed.header['kid'] !== key.kid) return `${what} names another key id than the JWKS key`;
  if (signed.header['typ'] !== typ) return `${what} is not typ ${typ}`;
  return signed;
}

/** canonicalBase64Url decodes base64url that re-encodes to the same text, or returns undefined. */
function canonicalBase64Url(text: string): Uint8Array | undefined {
  const bytes = fromBase64Url(text);
  return bytes !== undefined && toBase64Url(bytes) === text ? bytes : undefined;
}

function utf8Text(bytes: Uint8Array): string | undefined {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

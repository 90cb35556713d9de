import { sha256 } from '@noble/hashes/sha2.js';
import { fromBase64, toBase64 } from './base64url.js';

/** contentDigest returns the RFC 9530 Content-Digest field value for body: `sha-256=:…:`. */
export function contentDigest(body: Uint8Array): string {
  return `sha-256=:${toBase64(sha256(body))}:`;
}

/**
 * contentDigestMatches reports whether a received Content-Digest field carries a sha-256 member
 * equal to the digest of body. Other algorithms are ignored; a field without sha-256 fails.
 */
export function contentDigestMatches(field: string | undefined, body: Uint8Array): boolean {
  if (field === undefined || field.length > 1024) return false;
  const expected = sha256(body);
  for (const member of field.split(',')) {
    const match = /^\s*sha-256=:([A-Za-z0-9+/=]+):\s*$/.exec(member);
    if (match === null) continue;
    const presented = fromBase64(match[1] as string);
    return presented !== undefined && presented.length === expected.length && presented.every((b, i) => b === expected[i]);
  }
  return false;
}

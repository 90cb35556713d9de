import { sha256 } from '@noble/hashes/sha2.js';
import { toBase64 } from './base64url.js';

/** contentDigest returns the RFC 9530 Content-Digest field value for body: `sha-256=:…:`. */
export function contentDigest(body: Uint8Array): string {
  return `sha-256=:${toBase64(sha256(body))}:`;
}

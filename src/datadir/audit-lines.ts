import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';

/** The longest line audit.log may hold; entries are bounded well below this. */
export const AUDIT_LINE_BYTES_MAX = 16 * 1024;

/** The `prev` of the first line: 64 zeros. */
export const GENESIS_HASH = '0'.repeat(64);

/**
 * lineHash is the SHA-256 (lower-case hex) of a line's exact bytes, without its newline. Hashing
 * goes through @noble/hashes, as the design card requires of every hash the daemon relies on
 * (node:crypto's OpenSSL SHA-256 is faster, and docs/performance.md measures what that costs
 * `latch audit verify`).
 */
export function lineHash(bytes: Uint8Array): string {
  return bytesToHex(sha256(bytes));
}

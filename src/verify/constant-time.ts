import { timingSafeEqual } from 'node:crypto';
import { sha256 } from '@noble/hashes/sha2.js';
import { utf8 } from '../crypto/base64url.js';

/**
 * secretsEqual compares a presented secret with the expected one in constant time. Both sides are
 * hashed first, so neither the length nor the content of the expected secret leaks through timing.
 */
export function secretsEqual(presented: string, expected: string): boolean {
  return timingSafeEqual(sha256(utf8(presented)), sha256(utf8(expected)));
}

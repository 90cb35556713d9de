import { timingSafeEqual } from 'node:crypto';

/** bytesEqual compares two byte strings in constant time for their common length. */
export function bytesEqual(left: Uint8Array, right: Uint8Array): boolean {
  return left.length === right.length && timingSafeEqual(left, right);
}

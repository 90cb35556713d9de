import { randomBytes } from 'node:crypto';

/** Id prefixes; every id Latch or the sandbox makes starts with one of these. */
export type IdPrefix = 'card' | 'pw' | 'tx' | 'dev' | 'acct' | 'req' | 'st' | 'idem' | 'dep' | 'nonce' | 'ap' | 'md' | 'xa';

const LETTERS = 'abcdefghijkmnpqrstuvwxyz';
const LETTERS_AND_DIGITS = 'abcdefghijkmnpqrstuvwxyz23456789';

/** Random characters after the prefix: 24 characters carry about 115 bits. */
const ID_BODY_CHARS = 24;

/**
 * randomId makes a type-prefixed random id such as `card_k3xq…`. Every fourth character is a
 * letter, so an id never holds a run of more than three digits and can never look like a card
 * number to the PAN guard.
 */
export function randomId(prefix: IdPrefix): string {
  return `${prefix}_${randomBody(ID_BODY_CHARS)}`;
}

function randomBody(length: number): string {
  let pool = randomBytes(length * 2);
  let used = 0;
  let out = '';
  while (out.length < length) {
    if (used === pool.length) {
      pool = randomBytes(length * 2);
      used = 0;
    }
    const alphabet = out.length % 4 === 3 ? LETTERS : LETTERS_AND_DIGITS;
    const byte = pool[used++] as number;
    // Rejection sampling keeps every character uniform (no modulo bias).
    const limit = 256 - (256 % alphabet.length);
    if (byte < limit) out += alphabet[byte % alphabet.length];
  }
  return out;
}

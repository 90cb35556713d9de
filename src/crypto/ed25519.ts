import * as ed from '@noble/ed25519';
import { sha512 } from '@noble/hashes/sha2.js';

// noble-ed25519 v3 needs a synchronous SHA-512 to offer synchronous sign and verify.
ed.hashes.sha512 = sha512;

export const ED25519_PUBLIC_KEY_BYTES = 32;
export const ED25519_SIGNATURE_BYTES = 64;

/*
 * Signing is not here: only src/signer/ signs, and only it holds a secret key (docs/decisions.md §28).
 */

/**
 * verifyEd25519 reports whether signature is valid for message under publicKey. It uses strict
 * RFC 8032 / FIPS 186-5 rules (not ZIP-215) and never throws on malformed input.
 */
export function verifyEd25519(signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): boolean {
  if (signature.length !== ED25519_SIGNATURE_BYTES || publicKey.length !== ED25519_PUBLIC_KEY_BYTES) return false;
  try {
    return ed.verify(signature, message, publicKey, { zip215: false });
  } catch {
    return false;
  }
}

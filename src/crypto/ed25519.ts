/**
 * The sizes of Ed25519's public values. Signing is not here: only src/signer/ signs, and only it
 * holds a secret key (docs/decisions.md §28). Verifying is not here either: src/verify/ checks
 * signatures, and the audited core never does.
 */
export const ED25519_PUBLIC_KEY_BYTES = 32;
export const ED25519_SIGNATURE_BYTES = 64;

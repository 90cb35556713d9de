/**
 * Ed25519 verification (strict RFC 8032). It is in the signer's folder because this folder is the
 * one place noble's Ed25519 is imported; it holds and signs nothing, and anything may import it
 * (the sandbox, the client, the evidence verifier, the passkey check). The signer's own code never
 * hashes through noble's shared `hashes` setting installed here (signer/signing-boundary.test.ts).
 */
import * as ed from '@noble/ed25519';
import { sha512 } from '@noble/hashes/sha2.js';
import { ED25519_PUBLIC_KEY_BYTES, ED25519_SIGNATURE_BYTES } from '../crypto/ed25519.js';

// noble-ed25519 v3 needs a synchronous SHA-512 to offer synchronous verify.
ed.hashes.sha512 = sha512;

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

/**
 * The device key's proof of itself on GET /health (http/daemon-proof.ts): the signature of a
 * client's challenge bound to the address the client connected to, under a label used for
 * nothing else, so it can never be a window, a request or a pack.
 */
import type { SigningKey } from '../crypto/signing-key.js';
import { keyProofMessage } from '../crypto/key-proof-message.js';
import { signBytes } from './held-keys.js';

/** signKeyProof signs the key proof of challenge on address. */
export function signKeyProof(key: SigningKey, challenge: string, address: string): Uint8Array {
  return signBytes(key, keyProofMessage(challenge, address));
}

/**
 * The message of the device key's proof of itself (http/daemon-proof.ts): `latch-daemon-key-proof-v1`,
 * the challenge and the address, one per line. It can be neither a JWS signing input (which starts
 * with a base64url header) nor an RFC 9421 signature base (which starts with a quoted component),
 * so the device key's other signatures cannot be replayed as proofs, nor a proof as one of them.
 * The signer builds it to sign (signer/key-proof.ts); the client builds it to verify.
 */
import { utf8 } from './base64url.js';
import { KEY_PROOF_LABEL } from './signature-purposes.js';

/** keyProofMessage is the exact message the device key signs for a challenge on address. */
export function keyProofMessage(challenge: string, address: string): Uint8Array {
  return utf8(`${KEY_PROOF_LABEL}\n${challenge}\n${address}`);
}

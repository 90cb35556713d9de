/**
 * The daemon's identity proofs on GET /health (daemon-proof.ts): Latch-Proof keyed by a token and
 * Latch-Key-Proof signed by the device key. They are set by the front door once a request has
 * passed every check before its route (host, origin, method, credential, body), never before: a
 * request the door refuses (`Host: attacker.example`, say) gets no signature of the device key.
 * They are read from the socket, which only the server sees, since the proof must bind the
 * address the client connected to.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { KEY_PROOF_HEADER, keyProofForRequest, PROOF_HEADER, proofForRequest, type ProofKey, type ProofTokenFor } from './daemon-proof.js';

/** Where the proofs come from: the token for a client naming no agent or an agent, and the device key. */
export interface ProofSources {
  token: ProofTokenFor;
  /** The device key that signs the key proof (docs/decisions.md §21); undefined before enrollment. */
  key: () => ProofKey | undefined;
}

/**
 * attachProofs sets Latch-Proof and Latch-Key-Proof on a challenged GET /health. A token or key
 * file that cannot be read (or an unknown agent) gives no proof: the client then sends no token
 * or passphrase, and the routes that need the file report it.
 */
export function attachProofs(request: IncomingMessage, response: ServerResponse, sources: ProofSources): void {
  try {
    const proof = proofForRequest(request, sources.token);
    if (proof !== undefined) response.setHeader(PROOF_HEADER, proof);
  } catch {
    // No proof; see above.
  }
  try {
    const keyProof = keyProofForRequest(request, sources.key);
    if (keyProof !== undefined) response.setHeader(KEY_PROOF_HEADER, keyProof);
  } catch {
    // No key proof: the client then sends no passphrase.
  }
}

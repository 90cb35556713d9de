/**
 * The signer: the one folder that holds private keys (the device key, the identity keys) and the
 * only code that signs (docs/decisions.md §28). It answers an enumerated set of requests, each a
 * purpose with its own precondition, in the spirit of OpenSSH's ssh-agent: nothing asks for a key,
 * it asks for a signature of a stated kind. test/signer/signing-boundary.test.ts fails when any
 * other file in src/ imports a signing function or names a secret key.
 */
export { signRecordedWindow, signRevocation, WindowNotRecordedForSigning, type RecordedWindows } from './window.js';
export { signUpstreamRequest, type SignedHeaders } from './upstream-request.js';
export { signKeyProof } from './key-proof.js';
export { signEvidencePack } from './evidence-pack.js';
export { signDirectoryEntry, signRegistrationProof, signWebBotAuth } from './message-signatures.js';
export { Ap2MandateSigner, signRecordedOpenMandates } from './ap2-mandate.js';
export { signRecordedX402Receipt, X402NotRecordedForSigning } from './x402-receipt.js';

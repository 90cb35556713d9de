/**
 * What the signer answers (docs/decisions.md §28, §34.1): an enumerated set of purposes, each
 * with its own precondition checked against state the signer reads itself — the authorization
 * ledger it was bound to when it was built, and the keys it loaded — in the spirit of sshd's
 * monitor (`mm_answer_sign`). Nothing asks for a key; it asks for a signature of a stated kind.
 */
import type { P256PublicJwk } from '../ap2/p256.js';
import type { SignedOpenMandates } from '../ap2/sign-open-mandates.js';
import type { PolicyWindowPayload, RevocationPayload } from '../core/window-payload.js';
import type { Ed25519PublicJwk } from '../crypto/jwk.js';
import type { SigningKey, UpstreamKey } from '../crypto/signing-key.js';
import type { CoveredComponent, MessageSignature, SignatureParameter } from '../identity/message-signature.js';
import type { KeyFileFormat } from './key-file.js';

/** The device key as the daemon sees it: public material, and requests to the cloud (the enumerated calls only). */
export interface DeviceKeyRef extends UpstreamKey {
  readonly publicJwk: Ed25519PublicJwk;
  /** How the key is stored on disk: `raw` (file permissions only) or encrypted under a passphrase. */
  readonly storage: KeyFileFormat;
}

/** The AP2 mandate key's public half. */
export interface MandatePublicKey {
  readonly kid: string;
  readonly publicJwk: P256PublicJwk;
  readonly storage: KeyFileFormat;
}

/** The signer: one per daemon, built by createSigner in the daemon's wiring. */
export interface Signer {
  /** deviceKey returns the device key config.json names, or undefined before enrollment. */
  deviceKey(): DeviceKeyRef | undefined;
  /** mandateKey returns the AP2 mandate key's public half, or undefined before it is made. */
  mandateKey(): MandatePublicKey | undefined;
  /** window signs the ledger's active entry whose every term is payload's, under the device key keyId. */
  window(keyId: string, payload: PolicyWindowPayload): string;
  /** revocation signs a revocation of one policy window (it only takes authority away). */
  revocation(keyId: string, payload: RevocationPayload): string;
  /** evidencePack signs a pack whose window JWS is the one the ledger kept for its policy id. */
  evidencePack(keyId: string, bodyText: string): string;
  /** x402Receipt signs the receipt of the ledger's authorized x402 entry id, with the terms the ledger holds (docs/x402.md). */
  x402Receipt(keyId: string, id: string): string;
  /** openMandates signs the AP2 open mandates of the recorded `ap2_mandate` entry policyId, with the terms the ledger holds. */
  openMandates(policyId: string, cardLabel: string | undefined): SignedOpenMandates;
  /** keyProof signs the key proof of challenge on address (GET /health's Latch-Key-Proof) with the device key keyId. */
  keyProof(keyId: string, challenge: string, address: string): Uint8Array;
  /** webBotAuth signs an outgoing request with an identity key (tag web-bot-auth, agent-browser-auth or agent-payer-auth). */
  webBotAuth(key: SigningKey, label: string, components: readonly CoveredComponent[], params: readonly SignatureParameter[]): MessageSignature;
  /** directoryEntry signs one identity key's entry of the key directory (the directory tag). */
  directoryEntry(key: SigningKey, label: string, components: readonly CoveredComponent[], params: readonly SignatureParameter[]): MessageSignature;
  /** registrationProof signs the proof that registers an identity key with the cloud's directory (the directory tag). */
  registrationProof(key: SigningKey, label: string, components: readonly CoveredComponent[], params: readonly SignatureParameter[]): MessageSignature;
}

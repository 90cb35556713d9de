/**
 * The signer's key files as setup, the CLI and the daemon's start see them (docs/decisions.md
 * §34.1): made, rotated, finished, named and removed — nothing here signs or hands out a key that
 * could. A new device key signs its own enrollment and nothing else (enrollment-store.ts); the
 * mandate key is answered as its public half; an identity key as its handle, which only the
 * daemon's signer can sign with.
 */
import { ensureMandateKey as ensureMandateKeyFile, rotateMandateKey, mandateKeyPath } from './mandate-key.js';
import type { MandatePublicKey } from './signer.js';

export { PASSPHRASE_ENV, deviceKeyPath, passphraseFromEnv } from './device-key.js';
export { dataDirEnrollmentStore } from './enrollment-store.js';
export { finishKeyRollover } from './key-rollover.js';
export { rotateMandateKey, mandateKeyPath };
export { OWNER_IDENTITY, createIdentityKeyFile, destroyIdentityKeyFile, identityKeyFile, readIdentityKeyFile, replaceIdentityKeyFile } from './identity-key-file.js';

/**
 * ensureMandateKey makes mandate.key when the data directory has none (at setup, or at the first
 * start of a directory made before AP2 mandates) and returns its public half.
 */
export function ensureMandateKey(home: string, passphrase: string | undefined): MandatePublicKey {
  const { key, storage } = ensureMandateKeyFile(home, passphrase);
  return { kid: key.kid, publicJwk: key.publicJwk, storage };
}

/**
 * The signer: the one folder that holds private keys (the device key, the AP2 mandate key, the
 * identity keys) and the only code that signs (docs/decisions.md §28, §34). Its one export for
 * signing is createSigner, called once, in the daemon's wiring (src/daemon/core-binding.ts): the
 * signer it builds answers an enumerated set of purposes (signer.ts), each checked against the
 * ledger it is bound to. key-admin.ts is the rest of its public face, for setup and the CLI: key
 * files made, rotated and named, nothing signed. test/signer/signing-boundary.test.ts reads the
 * syntax tree of src/ and fails when anything else reaches a key or a signing primitive.
 */
import { keysInDataDir, type DataDirKeyOptions } from './key-source.js';
import { monitor } from './monitor.js';
import type { Signer } from './signer.js';
import type { RecordedWindows } from './window.js';

export type { DeviceKeyRef, MandatePublicKey, Signer } from './signer.js';
export type { RecordedWindows } from './window.js';

/** What createSigner binds: the data directory's keys, and the real authorization ledger. */
export interface SignerOptions extends DataDirKeyOptions {
  /** The authorization ledger every purpose checks (the daemon's StoredAuthorizationLedger). */
  ledger: RecordedWindows;
}

/** createSigner builds the daemon's one signer, bound to its data directory's keys and its ledger. */
export function createSigner(options: SignerOptions): Signer {
  return monitor(keysInDataDir(options), options.ledger);
}

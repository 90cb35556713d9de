/**
 * Signing an x402 receipt (shared/spec/x402.md §2, docs/x402.md; docs/decisions.md §34.1, §40).
 * The monitor's check, as for a window and AP2 mandates: the signer reads the authorization ledger
 * itself and signs only the receipt of an x402 entry that is recorded, active and `authorized`,
 * with the terms it reads from that entry (src/x402/receipt.ts), so a caller that skipped the
 * decision or the record gets no signature, and no caller can name the terms. Its own `typ`, never
 * accepted where a window or an evidence pack is.
 */
import { JWS_TYP } from '../crypto/signature-purposes.js';
import type { SigningKey } from '../crypto/signing-key.js';
import { maskHashes } from '../evidence/mask-hashes.js';
import { assertSignableWithoutCardData } from '../validate/card-data-guard.js';
import { receiptPayload } from '../x402/receipt.js';
import { compactJws } from './compact-jws.js';
import { entered } from './entered.js';
import type { RecordedWindows } from './window.js';

/** signRecordedX402Receipt signs the receipt of the ledger's x402 entry `id`, which must be active and authorized. */
export function signRecordedX402Receipt(key: SigningKey, ledger: RecordedWindows, id: string): string {
  const entry = ledger.get(id);
  entered(entry?.state === 'active' && entry.x402?.state === 'authorized', `x402 receipt ${id}`, () => (entry === undefined ? 'the ledger holds no entry for it' : 'its ledger entry is not an active, authorized x402 entry'));
  const payload = receiptPayload(entry);
  // The requirements' SHA-256 is masked for the guard only (see signer/evidence-pack.ts).
  assertSignableWithoutCardData(maskHashes(payload));
  return compactJws(JSON.stringify(payload), key, JWS_TYP.x402Receipt);
}

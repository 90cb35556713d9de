/**
 * Signing an x402 receipt (shared/spec/x402.md §2, docs/x402.md). The monitor's check, as for a
 * window: the signer reads the authorization ledger itself and signs only the receipt of an x402
 * entry that is recorded and `authorized`, rebuilding the payload from that entry, so a caller
 * that skipped the decision or the record, or changed a term, gets no signature. Its own `typ`.
 */
import type { AuthorizationEntry } from '../core/authorization-ledger.js';
import type { SigningKey } from '../crypto/signing-key.js';
import { assertSignableWithoutCardData } from '../validate/card-data-guard.js';
import { maskHashes } from '../evidence/mask-hashes.js';
import { receiptPayload, X402_RECEIPT_TYP } from '../x402/receipt.js';
import { compactJws } from './compact-jws.js';

/** What the signer reads of the ledger. */
export interface RecordedX402 {
  get(policyId: string): AuthorizationEntry | undefined;
}

/** Thrown when a receipt is asked for an entry the ledger does not hold as authorized: a programming error. */
export class X402NotRecordedForSigning extends Error {
  constructor(id: string, why: string) {
    super(`the signer refuses the x402 receipt of ${id}: ${why}`);
    this.name = 'X402NotRecordedForSigning';
  }
}

/**
 * signRecordedX402Receipt signs the receipt of the ledger's x402 entry `id`, which must be active
 * and `authorized`, with exactly the terms `expected` (the pipeline's own view of them).
 */
export function signRecordedX402Receipt(key: SigningKey, ledger: RecordedX402, id: string, expected: unknown): string {
  const entry = ledger.get(id);
  if (entry === undefined) throw new X402NotRecordedForSigning(id, 'the ledger holds no entry for it');
  if (entry.state !== 'active' || entry.x402?.state !== 'authorized') throw new X402NotRecordedForSigning(id, 'its ledger entry is not an authorized x402 entry');
  const payload = receiptPayload(entry);
  if (JSON.stringify(payload) !== JSON.stringify(expected)) throw new X402NotRecordedForSigning(id, 'the terms are not the ledger entry\'s');
  // The requirements' SHA-256 is masked for the guard only (see signer/evidence-pack.ts).
  assertSignableWithoutCardData(maskHashes(payload));
  return compactJws(JSON.stringify(payload), key, X402_RECEIPT_TYP);
}

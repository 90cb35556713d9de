/** Signing an evidence pack whole (shared/spec/evidence.md; docs/decisions.md §22, §34.1). */
import type { SigningKey } from '../crypto/signing-key.js';
import { maskHashes } from '../evidence/mask-hashes.js';
import { EVIDENCE_JWS_TYP, EVIDENCE_TYPE } from '../evidence/pack.js';
import { assertSignableWithoutCardData } from '../validate/card-data-guard.js';
import { compactJws } from './compact-jws.js';
import { entered } from './entered.js';
import type { RecordedWindows } from './window.js';

/**
 * signEvidencePack signs the pack's JSON text with the device key, only when the pack is a v1
 * evidence pack whose window JWS is the one the ledger kept for its policy id: a pack states what
 * the ledger holds, never what its caller wrote. The card-data guard runs on the pack first, as
 * on everything the key signs; the SHA-256 values in it (hashes, not numbers anyone wrote) are
 * masked for the guard only, since 64 random hex digits hold a Luhn-valid run of 13 to 19 digits
 * now and then.
 */
export function signEvidencePack(key: SigningKey, ledger: RecordedWindows, bodyText: string): string {
  const pack = parsedOrNull(bodyText) as { v?: unknown; type?: unknown; policy_id?: unknown; window?: { jws?: unknown }; x402?: { receipt?: unknown } } | null;
  entered(pack !== null && pack.v === 1 && pack.type === EVIDENCE_TYPE && typeof pack.policy_id === 'string', 'evidence pack', () => 'it is not a v1 evidence pack');
  const policyId = pack.policy_id as string;
  const entry = ledger.get(policyId);
  const kept = entry?.jws;
  // An x402 payment's pack carries its receipt where a window's carries the window (docs/x402.md).
  const carried = entry?.x402 !== undefined ? pack.x402?.receipt : pack.window?.jws;
  entered(kept !== undefined && carried === kept, `evidence pack ${policyId}`, () => 'its window (or x402 receipt) is not the JWS the ledger kept');
  assertSignableWithoutCardData(maskHashes(pack));
  return compactJws(bodyText, key, EVIDENCE_JWS_TYP);
}

function parsedOrNull(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

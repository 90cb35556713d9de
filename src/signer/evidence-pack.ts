/** Signing an evidence pack whole (shared/spec/evidence.md; docs/decisions.md §22). */
import type { SigningKey } from '../crypto/signing-key.js';
import { maskHashes } from '../evidence/mask-hashes.js';
import { EVIDENCE_JWS_TYP } from '../evidence/pack.js';
import { assertSignableWithoutCardData } from '../validate/card-data-guard.js';
import { compactJws } from './compact-jws.js';

/**
 * signEvidencePack signs the pack's JSON text with the device key. The card-data guard runs on
 * the pack first, as on everything the key signs; the SHA-256 values in it (hashes, not numbers
 * anyone wrote) are masked for the guard only, since 64 random hex digits hold a Luhn-valid run
 * of 13 to 19 digits now and then.
 */
export function signEvidencePack(key: SigningKey, bodyText: string): string {
  assertSignableWithoutCardData(maskHashes(JSON.parse(bodyText)));
  return compactJws(bodyText, key, EVIDENCE_JWS_TYP);
}

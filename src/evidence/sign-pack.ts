/**
 * The one call of the signer's evidence-pack purpose (docs/decisions.md §34.1, §42). A pack is
 * built over awaits (the cloud's facts, its audit line), during which the ledger may forget the
 * entry (past retention); the signer signs only a pack carrying the JWS the ledger keeps, and stops
 * the daemon on any other, so the ledger is read again here, in the turn the pack is signed.
 */
import type { CoreDeps } from '../core/core-deps.js';
import { LatchError } from '../errors/latch-error.js';

/** signPack signs bodyText, a pack of policyId carrying kept (its window or x402 receipt), or refuses with evidence_unavailable. */
export function signPack(deps: Pick<CoreDeps, 'authorizations' | 'signer'>, policyId: string, kept: string, keyId: string, bodyText: string): string {
  if (deps.authorizations.get(policyId)?.jws !== kept) throw new LatchError('evidence_unavailable', { message: 'This authorization is no longer kept as it was when its pack was started; nothing was signed.' });
  return deps.signer.evidencePack(keyId, bodyText);
}

/**
 * A registered key's proof of possession (docs/decisions.md §23.6): a directory signature over
 * `"@authority";req` alone — the directory draft's form — so that a cloud serving many devices'
 * keys under its own authority can serve each key's proof unchanged, whatever else the document
 * holds. The daemon makes it; the cloud checks it and serves it.
 */
import type { CoveredComponent, SignatureParameter } from './message-signature.js';
import { HTTP_SIGNATURE_TAG } from '../crypto/signature-purposes.js';

/** The cloud path a device registers its identity keys at. */
export const IDENTITY_DIRECTORY_PATH = '/v1/devices/identity-directory';

/** proofComponents is what a proof covers: the authority the directory is served under. */
export function proofComponents(authority: string): CoveredComponent[] {
  return [{ id: '"@authority";req', value: authority.toLowerCase() }];
}

/** proofParams are a proof's signature parameters, in the order they are written. */
export function proofParams(keyId: string, created: number, expires: number): SignatureParameter[] {
  return [['created', created], ['expires', expires], ['keyid', keyId], ['tag', HTTP_SIGNATURE_TAG.keyDirectory]];
}

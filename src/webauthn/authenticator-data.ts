/**
 * Authenticator data (WebAuthn Level 3 §6.1): the RP ID hash, the flags, the signature counter
 * and, at registration, the attested credential (its id and COSE public key).
 */
import { decodeCborPrefix, type CborValue } from './cbor.js';

export const FLAG_USER_PRESENT = 0x01;
export const FLAG_USER_VERIFIED = 0x04;
export const FLAG_ATTESTED_CREDENTIAL = 0x40;
export const FLAG_EXTENSIONS = 0x80;

const RP_ID_HASH_BYTES = 32;
const HEADER_BYTES = RP_ID_HASH_BYTES + 1 + 4;
const AAGUID_BYTES = 16;
/** WebAuthn caps a credential id at 1,023 bytes. */
const CREDENTIAL_ID_BYTES_MAX = 1023;

export interface AuthenticatorData {
  readonly rpIdHash: Uint8Array;
  readonly flags: number;
  readonly signCount: number;
  readonly credential?: { readonly id: Uint8Array; readonly publicKey: CborValue };
}

/** parseAuthenticatorData reads authenticator data, or returns why it cannot. */
export function parseAuthenticatorData(bytes: Uint8Array): AuthenticatorData | string {
  if (bytes.length < HEADER_BYTES) return 'authenticator data is too short';
  const rpIdHash = bytes.subarray(0, RP_ID_HASH_BYTES);
  const flags = bytes[RP_ID_HASH_BYTES] ?? 0;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const signCount = view.getUint32(RP_ID_HASH_BYTES + 1);
  let offset = HEADER_BYTES;
  let credential: AuthenticatorData['credential'];
  if ((flags & FLAG_ATTESTED_CREDENTIAL) !== 0) {
    if (bytes.length < offset + AAGUID_BYTES + 2) return 'attested credential data is truncated';
    offset += AAGUID_BYTES;
    const idLength = view.getUint16(offset);
    offset += 2;
    if (idLength === 0 || idLength > CREDENTIAL_ID_BYTES_MAX) return 'the credential id length is out of range';
    if (bytes.length < offset + idLength) return 'the credential id is truncated';
    const id = Uint8Array.from(bytes.subarray(offset, offset + idLength));
    offset += idLength;
    try {
      const key = decodeCborPrefix(bytes.subarray(offset));
      offset += key.length;
      credential = { id, publicKey: key.value };
    } catch {
      return 'the credential public key is not valid CBOR';
    }
  }
  if ((flags & FLAG_EXTENSIONS) !== 0) {
    try {
      offset += decodeCborPrefix(bytes.subarray(offset)).length;
    } catch {
      return 'the extensions are not valid CBOR';
    }
  }
  if (offset !== bytes.length) return 'authenticator data has trailing bytes';
  return { rpIdHash: Uint8Array.from(rpIdHash), flags, signCount, credential };
}

/**
 * The compact EdDSA JWS (RFC 7515, RFC 8037) the signer writes: a protected header naming the key
 * by its thumbprint, then the payload text. Internal to the signer folder: callers ask for a
 * window, a revocation or an evidence pack, never for "a JWS of these bytes".
 */
import { toBase64Url, utf8 } from '../crypto/base64url.js';
import type { JwsHeader } from '../crypto/jws.js';
import type { SigningKey } from '../crypto/signing-key.js';
import { signBytes } from './held-keys.js';

/** compactJws signs payloadText under a header of key's id and typ. */
export function compactJws(payloadText: string, key: SigningKey, typ: string): string {
  const header: JwsHeader = { alg: 'EdDSA', kid: key.keyId, typ };
  const signingInput = `${toBase64Url(utf8(JSON.stringify(header)))}.${toBase64Url(utf8(payloadText))}`;
  return `${signingInput}.${toBase64Url(signBytes(key, utf8(signingInput)))}`;
}

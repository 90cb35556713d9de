/**
 * COSE public keys (RFC 9053) as WebAuthn authenticators send them, for the two algorithms the
 * console accepts: ES256 (-7, an EC2 P-256 key) and EdDSA (-8, an OKP Ed25519 key). Each becomes
 * a public JWK, which is how the daemon stores a passkey.
 */
import { toBase64Url } from '../crypto/base64url.js';
import type { CborValue } from './cbor.js';

export const COSE_ALG_ES256 = -7;
export const COSE_ALG_EDDSA = -8;

export type PasskeyAlgorithm = typeof COSE_ALG_ES256 | typeof COSE_ALG_EDDSA;

export type PasskeyPublicJwk =
  | { readonly kty: 'EC'; readonly crv: 'P-256'; readonly x: string; readonly y: string }
  | { readonly kty: 'OKP'; readonly crv: 'Ed25519'; readonly x: string };

export interface PasskeyPublicKey {
  readonly alg: PasskeyAlgorithm;
  readonly jwk: PasskeyPublicJwk;
}

// COSE key map labels (RFC 9052 §7.1, RFC 9053 §7).
const LABEL_KTY = 1;
const LABEL_ALG = 3;
const LABEL_CRV = -1;
const LABEL_X = -2;
const LABEL_Y = -3;
const KTY_OKP = 1;
const KTY_EC2 = 2;
const CRV_P256 = 1;
const CRV_ED25519 = 6;

/** coseToPublicKey reads a COSE key map, or returns a reason it is not one the console accepts. */
export function coseToPublicKey(value: CborValue): PasskeyPublicKey | string {
  if (!(value instanceof Map)) return 'the credential public key is not a COSE key map';
  const kty = value.get(LABEL_KTY);
  const alg = value.get(LABEL_ALG);
  const crv = value.get(LABEL_CRV);
  const x = value.get(LABEL_X);
  if (alg === COSE_ALG_ES256) {
    const y = value.get(LABEL_Y);
    if (kty !== KTY_EC2 || crv !== CRV_P256) return 'an ES256 key must be an EC2 key on P-256';
    if (!isBytes(x, 32) || !isBytes(y, 32)) return 'an ES256 key needs 32-byte x and y coordinates';
    return { alg, jwk: { kty: 'EC', crv: 'P-256', x: toBase64Url(x), y: toBase64Url(y) } };
  }
  if (alg === COSE_ALG_EDDSA) {
    if (kty !== KTY_OKP || crv !== CRV_ED25519) return 'an EdDSA key must be an OKP key on Ed25519';
    if (!isBytes(x, 32)) return 'an Ed25519 key needs a 32-byte x';
    return { alg, jwk: { kty: 'OKP', crv: 'Ed25519', x: toBase64Url(x) } };
  }
  return 'only ES256 (-7) and EdDSA (-8) credentials are accepted';
}

function isBytes(value: CborValue | undefined, length: number): value is Uint8Array {
  return value instanceof Uint8Array && value.length === length;
}

/**
 * ES256 open mandates signed with a raw P-256 scalar, for tests only: another key than the
 * daemon's, or the daemon's own read from its file by a test playing a thief. The daemon's mandate
 * key signs only through its signer's purpose (src/signer/ap2-mandate.ts), which has no method a
 * test could call with claims of its choosing.
 */
import { createPrivateKey, sign } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { toBase64Url } from '../../src/crypto/base64url.js';
import { p256Thumbprint, type P256PublicJwk } from '../../src/ap2/p256.js';
import { OPEN_CHECKOUT_VCT, packOpenCheckout, packOpenPayment, type OpenCheckoutClaims, type OpenPaymentClaims } from '../../src/ap2/open-mandates.js';
import { issueRootSdJwt } from '../../src/ap2/sd-jwt.js';
import type { OpenMandateSigner } from '../../src/ap2/sign-open-mandates.js';
import { parseKeyFile, rawSecretKey, type RawKeyFile } from '../../src/signer/key-file.js';
import { mandateKeyPath } from '../../src/signer/mandate-key.js';
import { p256PublicJwkOfScalar } from '../../src/signer/p256-scalar.js';

/** rawMandateSigner signs open mandates (any claims) with scalar d. */
export function rawMandateSigner(d: Uint8Array): OpenMandateSigner & { publicJwk: P256PublicJwk } {
  const publicJwk = p256PublicJwkOfScalar(d);
  const kid = p256Thumbprint(publicJwk);
  const key = createPrivateKey({ key: { ...publicJwk, d: toBase64Url(d) }, format: 'jwk' });
  const es256 = { kid, sign: (input: string) => new Uint8Array(sign('sha256', Buffer.from(input, 'ascii'), { key, dsaEncoding: 'ieee-p1363' })) };
  return {
    kid,
    publicJwk,
    signOpenCheckoutMandate: (claims: OpenCheckoutClaims) => issueRootSdJwt({ ...claims, vct: OPEN_CHECKOUT_VCT }, packOpenCheckout, es256),
    signOpenPaymentMandate: (claims: OpenPaymentClaims) => issueRootSdJwt(claims, packOpenPayment, es256),
  };
}

/** stolenMandateSigner reads an unencrypted mandate.key from home, as a thief with the file would. */
export function stolenMandateSigner(home: string): OpenMandateSigner & { publicJwk: P256PublicJwk } {
  const file = mandateKeyPath(home);
  const parsed = parseKeyFile(readFileSync(file, 'utf8'), file, { name: 'mandate.key', remake: 'x' });
  return rawMandateSigner(rawSecretKey(parsed as RawKeyFile));
}

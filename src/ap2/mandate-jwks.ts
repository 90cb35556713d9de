/**
 * The trusted surface's JWKS (GET /ap2/jwks): the current mandate key first, then each retired key
 * until every mandate it signed has expired (src/signer/mandate-key.ts). This is what an AP2
 * credentials provider or merchant loads to verify Latch's open mandates.
 */
import type { P256PublicJwk } from './p256.js';

/** One key of the mandate JWKS, in the members the spec names. */
export interface MandateJwk extends P256PublicJwk {
  kid: string;
  alg: 'ES256';
  use: 'sig';
}

/** The mandate JWKS. */
export interface MandateJwks {
  keys: MandateJwk[];
}

/** mandateJwk is the public JWK of one mandate key, as GET /ap2/jwks and `latch ap2 key` print it. */
export function mandateJwk(key: { publicJwk: P256PublicJwk; kid: string }): MandateJwk {
  return { kty: 'EC', crv: 'P-256', x: key.publicJwk.x, y: key.publicJwk.y, kid: key.kid, alg: 'ES256', use: 'sig' };
}

/** mandateJwks lists the current key and the retired keys still listed at nowSeconds, each kid once. */
export function mandateJwks(current: { publicJwk: P256PublicJwk; kid: string } | undefined, retired: readonly { jwk: P256PublicJwk; kid: string; until: number }[], nowSeconds: number): MandateJwks {
  const keys: MandateJwk[] = current === undefined ? [] : [mandateJwk(current)];
  for (const key of retired) {
    if (key.until > nowSeconds && !keys.some((listed) => listed.kid === key.kid)) keys.push(mandateJwk({ publicJwk: key.jwk, kid: key.kid }));
  }
  return { keys };
}

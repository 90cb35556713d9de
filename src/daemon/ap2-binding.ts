/**
 * bindAp2 gives the AP2 routes (docs/ap2.md) the daemon's mandate keys: the current one from
 * mandate.key and the retired ones still listed, each re-read when its file changes (a rotation
 * takes effect without a restart).
 */
import { mandateJwks } from '../ap2/mandate-jwks.js';
import type { Ap2Operations } from '../variant-a/ap2-routes.js';
import type { DaemonServices } from './services.js';

/** bindAp2 returns the AP2 operations of one daemon. */
export function bindAp2(services: DaemonServices, nowSeconds: () => number): Ap2Operations {
  return {
    jwks: () => mandateJwks(services.mandateKey()?.signer, services.retiredMandateKeys(), nowSeconds()),
  };
}

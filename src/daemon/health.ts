import type { SigningPause } from '../core/signing-pause.js';
import type { DaemonServices } from './services.js';
import type { Signer } from '../signer/index.js';

/** The daemon's own view of its health; it never involves the cloud (docs/decisions.md §7 rule 1). */
export interface HealthReport {
  version: string;
  uptimeSeconds: number;
  /** The loaded device key's public material, or null before enrollment. */
  signingKey: { keyId: string; publicKey: Uint8Array } | null;
  /** The owner's emergency brake, when pulled. */
  paused: SigningPause | null;
}

/** healthReport gathers what /health reports on either listener, from local state only. */
export function healthReport(services: DaemonServices, signer: Pick<Signer, 'deviceKey'>): HealthReport {
  const key = signer.deviceKey();
  return {
    version: services.version,
    uptimeSeconds: services.uptimeSeconds(),
    signingKey: key === undefined ? null : { keyId: key.keyId, publicKey: key.publicKey },
    paused: services.paused() ?? null,
  };
}

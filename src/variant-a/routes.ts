import { toBase64Url } from '../crypto/base64url.js';
import { healthReport } from '../daemon/health.js';
import type { DaemonServices } from '../daemon/services.js';
import type { Route } from '../http/route.js';
import type { CoreBinding } from '../daemon/core-binding.js';
import { variantAApiRoutes } from './api-routes.js';

/**
 * variantARoutes is the route table of the canonical listener (127.0.0.1:7723, decisions §2).
 * Only GET /health is public; every other route needs the bearer token.
 */
export function variantARoutes(services: DaemonServices, core: CoreBinding): Route[] {
  return [
    {
      method: 'GET',
      pattern: '/health',
      auth: 'none',
      handler: () => {
        const health = healthReport(services);
        const key = health.signingKey;
        return {
          status: 200,
          body: {
            status: 'ok',
            version: health.version,
            uptime_seconds: health.uptimeSeconds,
            signing_key: key === null ? null : { key_id: key.keyId, algorithm: 'Ed25519', public_key: toBase64Url(key.publicKey) },
          },
        };
      },
    },
    ...variantAApiRoutes(core.deps, core.cloud),
  ];
}

import type { DaemonServices } from '../daemon/services.js';
import type { Route } from '../http/route.js';
import type { CoreBinding } from '../daemon/core-binding.js';
import { variantBApiRoutes } from './api-routes.js';

/**
 * variantBRoutes is the route table of the compatibility listener (127.0.0.1:7732, decisions §2):
 * exactly Variant B's paths and shapes, every one behind the bearer token, /health included.
 */
export function variantBRoutes(services: DaemonServices, core: CoreBinding): Route[] {
  return [
    {
      method: 'GET',
      pattern: '/health',
      auth: 'token',
      handler: () => {
        // B's health is exactly {status, version, uptime_seconds}; it does not read the key.
        return { status: 200, body: { status: 'ok', version: services.version, uptime_seconds: services.uptimeSeconds() } };
      },
    },
    ...variantBApiRoutes(core.deps),
  ];
}

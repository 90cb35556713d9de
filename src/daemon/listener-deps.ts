import { OWNER } from '../core/principal.js';
import { coreOperations } from '../core/operations.js';
import type { Credential } from '../http/bearer-token.js';
import type { VariantADeps } from '../variant-a/routes.js';
import type { VariantBDeps } from '../variant-b/routes.js';
import type { CoreBinding } from './core-binding.js';
import { healthReport } from './health.js';
import type { DaemonServices } from './services.js';

/** listenerDeps gives each listener's route table exactly what it calls, from one daemon's state. */
export function listenerDeps(services: DaemonServices, core: CoreBinding): { a: VariantADeps; b: VariantBDeps } {
  const operations = coreOperations(core.deps);
  return {
    a: { operations, health: () => healthReport(services), proxyUpstream: core.proxyUpstream },
    b: { operations, health: () => ({ version: services.version, uptimeSeconds: services.uptimeSeconds() }) },
  };
}

/**
 * daemonCredentials lists the tokens the front door accepts now: the daemon token, as the owner.
 * Agents' tokens join this list when they exist.
 */
export function daemonCredentials(services: DaemonServices): () => ReadonlyArray<Credential> {
  return () => [{ token: services.token(), principal: OWNER }];
}

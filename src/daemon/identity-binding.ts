/**
 * bindIdentity gives the identity operations (docs/decisions.md §23) the daemon's state: the
 * identity keys of its data directory, the cloud-corrected clock windows are signed in, the policy
 * in force, config.json's published directory URL and the shared audit log.
 */
import { sharedAuditWriter } from '../datadir/audit-writer.js';
import { DataDirError } from '../datadir/data-dir-error.js';
import { identityKeyring } from '../identity/identity-keyring.js';
import { identityOperations, type IdentityOperations } from '../identity/identity-operations.js';
import type { CoreBinding } from './core-binding.js';
import { directoryRegistrar, type DirectoryRegistrar } from './identity-registration.js';
import type { DaemonServices } from './services.js';

/** A daemon's identity: the operations its routes call, and the registrar of its keys with the cloud. */
export interface IdentityBinding {
  operations: IdentityOperations;
  registrar: DirectoryRegistrar;
}

/** bindIdentity returns the identity operations of one daemon and its cloud registrar. */
export function bindIdentity(services: DaemonServices, core: CoreBinding): IdentityBinding {
  const writer = sharedAuditWriter(services.home);
  const keys = identityKeyring(services.home);
  const registrar = directoryRegistrar({ keys, upstream: core.proxyUpstream, cloudNowSeconds: () => core.cloudClock.nowSeconds(), logger: services.logger });
  const operations = identityOperations({
    keys,
    cloudNowSeconds: () => core.cloudClock.nowSeconds(),
    policy: () => core.policy.effective(),
    directoryUrl: () => services.config().identity_directory_url,
    audit: async (entry) => {
      try {
        await writer.append(entry);
      } catch (error) {
        if (error instanceof DataDirError) services.logger.error('audit_append_refused', { reason: error.code, detail: error.message });
        throw error;
      }
    },
    // The cloud's copy of the directory follows the keys this daemon uses.
    keysSeen: () => registrar.check(),
  });
  return { operations, registrar };
}

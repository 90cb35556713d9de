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
import type { DaemonServices } from './services.js';

/** bindIdentity returns the identity operations of one daemon. */
export function bindIdentity(services: DaemonServices, core: CoreBinding, keysSeen?: () => void): IdentityOperations {
  const writer = sharedAuditWriter(services.home);
  return identityOperations({
    keys: identityKeyring(services.home),
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
    ...(keysSeen !== undefined && { keysSeen }),
  });
}

/**
 * bindIdentity gives the identity operations (docs/decisions.md §23) the daemon's state: the
 * identity keys of its data directory, the cloud-corrected clock windows are signed in, the policy
 * in force, config.json's published directory URL and the shared audit log.
 */
import { identityKeyring } from '../identity/identity-keyring.js';
import { identityOperations, type IdentityOperations } from '../identity/identity-operations.js';
import type { CoreBinding } from './core-binding.js';
import { directoryRegistrar, type DirectoryRegistrar } from './identity-registration.js';
import type { DaemonServices } from './services.js';

/** How often a signature may make the daemon look for a changed key set. */
const KEYS_SEEN_CHECK_INTERVAL_MS = 1000;

/** A daemon's identity: the operations its routes call, and the registrar of its keys with the cloud. */
export interface IdentityBinding {
  operations: IdentityOperations;
  registrar: DirectoryRegistrar;
}

/** bindIdentity returns the identity operations of one daemon and its cloud registrar. */
export function bindIdentity(services: DaemonServices, core: CoreBinding): IdentityBinding {
  const keys = identityKeyring(services.home);
  const registrar = directoryRegistrar({ keys, upstream: core.proxyUpstream, cloudNowSeconds: () => core.cloudClock.nowSeconds(), logger: services.logger, signer: core.signer });
  let lastCheckMs = Number.NEGATIVE_INFINITY;
  const operations = identityOperations({
    keys,
    signer: core.signer,
    cloudNowSeconds: () => core.cloudClock.nowSeconds(),
    policy: () => core.policy.effective(),
    directoryUrl: () => services.config().identity_directory_url,
    // Through the daemon's one recorder, so an identity line moves the audit anchor like every other.
    audit: async (entry) => {
      await core.appendAudit(entry);
    },
    // The cloud's copy of the directory follows the keys this daemon uses: at every directory
    // request, and at most once a second for signatures, so a burst does not list the agents folder each time.
    keysSeen: (listed) => {
      const nowMs = Date.now();
      if (!listed && nowMs - lastCheckMs < KEYS_SEEN_CHECK_INTERVAL_MS) return;
      lastCheckMs = nowMs;
      registrar.check();
    },
  });
  return { operations, registrar };
}

import { checkPolicy } from '../policy-text/policy-reads.js';
import { approvalOperations } from '../operations/approval-operations.js';
import { authorizationListOperations } from '../operations/authorization-list.js';
import { LedgerPages } from '../operations/ledger-pages.js';
import { coreOperations } from '../operations/operations.js';
import type { VariantADeps } from '../variant-a/routes.js';
import type { VariantBDeps } from '../variant-b/routes.js';
import type { CoreBinding } from './core-binding.js';
import { createCredentials, type Credentials } from './credentials.js';
import { evidenceOperations } from './evidence-binding.js';
import { healthReport } from './health.js';
import type { Signer } from '../signer/index.js';
import type { ProofKey } from '../http/daemon-proof.js';
import { bindOwner } from './owner-binding.js';
import { readAudit } from '../verify/audit-read.js';
import { verifyAudit } from '../verify/audit-verify.js';
import { bindIdentity } from './identity-binding.js';
import { bindAp2 } from './ap2-binding.js';
import { bindX402 } from './x402-binding.js';
import type { DirectoryRegistrar } from './identity-registration.js';
import type { DaemonServices } from './services.js';

/** listenerDeps gives each listener's route table exactly what it calls, from one daemon's state. */
export function listenerDeps(services: DaemonServices, core: CoreBinding, consoleLoginLink: () => { url: string; expires_at: string }): { a: VariantADeps; b: VariantBDeps; registrar: DirectoryRegistrar } {
  const operations = coreOperations(core.deps, { device: core.readingDevice, authorizations: core.authorizationLedger });
  const authorizations = authorizationListOperations(core.deps, core.authorizationLedger, new LedgerPages(core.authorizationLedger));
  const identity = bindIdentity(services, core);
  return {
    registrar: identity.registrar,
    a: {
      operations,
      authorizations,
      approvals: approvalOperations(core.deps),
      evidence: evidenceOperations(services, core),
      health: () => ({ ...healthReport(services, core.signer), cloudClockSkewSeconds: core.cloudClock.skewSeconds() ?? null, ownerPresence: presenceForHealth(core), approvalsLockedSeconds: core.presence.lockedSeconds() }),
      policy: {
        effective: () => core.policy.effective(),
        // A check answers what the request would get: a charged merchant is learned first (§31.2).
        check: async (request, agent, context) => {
          if (context !== undefined) await core.learnChargedMerchant(request.merchant, context);
          return checkPolicy(core.policy, request, agent, core.deps.nowSeconds());
        },
      },
      proxyUpstream: core.proxyUpstream,
      identity: identity.operations,
      ap2: bindAp2(services, core.deps, core.signer.mandateKey, () => core.cloudClock.nowSeconds(), { device: core.readingDevice, ledger: core.authorizationLedger }),
      x402: bindX402(core.deps),
      owner: bindOwner(services, core, authorizations),
      consoleLoginLink,
      audit: { recent: (limit) => readAudit(services.home, { limit }), verify: () => verifyAudit(services.home) },
    },
    b: { operations, health: () => ({ version: services.version, uptimeSeconds: services.uptimeSeconds() }) },
  };
}


/**
 * daemonCredentials is the one credential set of a daemon, shared by both listeners: the daemon
 * token as the owner and each agent's token, re-read from disk at each request, so `latch agent
 * add | rotate | remove` and `latch token rotate` take effect without a restart.
 */
export function daemonCredentials(services: DaemonServices): Credentials {
  return createCredentials({ home: services.home, ownerToken: services.token, logger: services.logger });
}

/**
 * proofTokenFor returns the token that keys the daemon proof for a client that names itself
 * (daemon-proof.ts): the daemon token when it names no agent, the agent's own token when it names
 * a current agent, and undefined (no proof) for an unknown agent.
 */
export function proofTokenFor(services: DaemonServices, credentials: Credentials): (agent: string | undefined) => string | undefined {
  return (agent) => {
    if (agent === undefined) return services.token();
    const found = credentials.list().find(({ principal }) => principal.kind === 'agent' && principal.name === agent);
    return found?.token;
  };
}

/**
 * presenceForHealth is what /health reports of presence; a passphrase file that cannot be read
 * safely is reported as `unavailable` (every check that needs it fails closed, 503), so that the
 * daemon's health still answers.
 */
function presenceForHealth(core: CoreBinding): string {
  try {
    return core.presence.describe();
  } catch {
    return 'unavailable';
  }
}

/** proofKeyFor gives the device key for the key proof (daemon-proof.ts), or undefined before enrollment. */
export function proofKeyFor(signer: Pick<Signer, 'deviceKey' | 'keyProof'>): () => ProofKey | undefined {
  return () => {
    const key = signer.deviceKey();
    if (key === undefined) return undefined;
    return { keyId: key.keyId, publicKey: key.publicKey, sign: (challenge, address) => signer.keyProof(key.keyId, challenge, address) };
  };
}

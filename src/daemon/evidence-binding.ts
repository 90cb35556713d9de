/**
 * The daemon's side of evidence packs (docs/decisions.md §22): the pack reads the authorization
 * ledger, the approval book and audit.log of this daemon, and the cloud through the core's deps.
 */
import type { CoreBinding } from './core-binding.js';
import type { DaemonServices } from './services.js';
import { exportEvidence } from '../evidence/build-pack.js';
import { readAuditExcerpt } from '../evidence/audit-excerpt.js';
import type { EvidenceOperations } from '../variant-a/evidence-routes.js';
import { mandateJwk, type MandateJwk } from '../ap2/mandate-jwks.js';

/** mandateKeyById finds a mandate key, current or retired (listed or not), by its kid. */
function mandateKeyById(services: DaemonServices, core: CoreBinding, kid: string): MandateJwk | undefined {
  const current = core.signer.mandateKey();
  if (current?.kid === kid) return mandateJwk(current);
  const retired = services.retiredMandateKeys().find((key) => key.kid === kid);
  return retired === undefined ? undefined : mandateJwk({ publicJwk: retired.jwk, kid: retired.kid });
}

/** evidenceOperations binds the export to one daemon's state. */
export function evidenceOperations(services: DaemonServices, core: CoreBinding): EvidenceOperations {
  const sources = {
    deps: core.deps,
    device: core.readingDevice,
    ledger: core.authorizationLedger,
    approval: (id: string) => core.deps.approvals.book.get(id),
    auditExcerpt: (ids: { policyId: string; approvalId: string | null }) => readAuditExcerpt(services.home, ids),
    mandateKey: (kid: string) => mandateKeyById(services, core, kid),
  };
  return { exportEvidence: (policyId, context) => exportEvidence(sources, policyId, context) };
}

/**
 * The daemon's side of evidence packs (docs/decisions.md §22): the pack reads the authorization
 * ledger, the approval book and audit.log of this daemon, and the cloud through the core's deps.
 */
import type { CoreBinding } from './core-binding.js';
import type { DaemonServices } from './services.js';
import { exportEvidence } from '../evidence/build-pack.js';
import { readAuditExcerpt } from '../evidence/audit-excerpt.js';
import type { EvidenceOperations } from '../variant-a/evidence-routes.js';

/** evidenceOperations binds the export to one daemon's state. */
export function evidenceOperations(services: DaemonServices, core: CoreBinding): EvidenceOperations {
  const sources = {
    deps: core.deps,
    ledger: core.authorizationLedger,
    approval: (id: string) => core.deps.approvals.book.get(id),
    auditExcerpt: (ids: { policyId: string; approvalId: string | null }) => readAuditExcerpt(services.home, ids),
  };
  return { exportEvidence: (policyId, context) => exportEvidence(sources, policyId, context) };
}

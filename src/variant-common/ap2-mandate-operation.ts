/**
 * The AP2 mandate operation (POST /ap2/mandates, the MCP tool latch_ap2_mandate, `latch ap2
 * mandate`): one run of the authorization pipeline, answered with the open mandates kept in the
 * ledger entry, so a retry under the same Idempotency-Key and an approved request are answered
 * with exactly the mandates that were signed and audited.
 */
import { LatchError } from '../errors/latch-error.js';
import type { Approval } from '../core/approval.js';
import type { Ap2MandateRequest } from '../core/authorization-request.js';
import { requestAuthorization } from '../core/authorizations.js';
import type { CoreDeps, OperationContext } from '../core/core-deps.js';
import type { Ap2MandateRecord } from '../core/decision-record.js';
import type { Authorization } from '../core/model.js';

/** The signed mandates with the card window's authorization, or the approval that holds the request. */
export type Ap2MandateResult = { outcome: 'created'; authorization: Authorization; mandates: Ap2MandateRecord } | { outcome: 'approval_pending'; approval: Approval };

/** requestAp2Mandates runs an AP2 mandate request through the pipeline. */
export async function requestAp2Mandates(deps: CoreDeps, request: Ap2MandateRequest, context: OperationContext): Promise<Ap2MandateResult> {
  const result = await requestAuthorization(deps, request, context);
  if (result.outcome === 'approval_pending') return result;
  return { outcome: 'created', authorization: result.authorization, mandates: mandatesOf(deps, result.authorization.policyId) };
}

/** mandatesOf reads the open mandates kept with an authorization's ledger entry. */
export function mandatesOf(deps: CoreDeps, policyId: string): Ap2MandateRecord {
  const mandates = deps.authorizations.get(policyId)?.evidence?.mandates;
  // The ledger keeps entries for 90 days, far longer than any mandate lives.
  if (mandates === undefined) throw new LatchError('authorization_not_found', { message: 'No AP2 mandates are kept for this authorization.' });
  return mandates;
}

/**
 * Variant A's evidence route (shared/spec/evidence.md §1): GET /authorizations/:policy_id/evidence
 * answers the pack's exact bytes, so what a client saves is what the device signed. The owner gets
 * any authorization's pack, an agent only its own (another's is authorization_not_found).
 */
import type { OperationContext } from '../core/core-deps.js';
import type { RouteHandler } from '../http/route.js';
import { LatchError } from '../errors/latch-error.js';
import { LEDGER_ID_PATTERN } from '../ids/wire-ids.js';
import { validateQuery } from '../validate/schema.js';
import { operationContext } from '../variant-common/operation-context.js';

/** What the route calls: the pack's text for one authorization. */
export interface EvidenceOperations {
  exportEvidence(policyId: string, context: OperationContext): Promise<string>;
}

/** evidenceHandler maps the route to the export. */
export function evidenceHandler(operations: EvidenceOperations): RouteHandler {
  return async (request) => {
    validateQuery(request.query, {});
    const policyId = request.params['policy_id'] ?? '';
    // A malformed id in the path is a missing authorization, like an unknown one.
    if (!LEDGER_ID_PATTERN.test(policyId)) throw new LatchError('authorization_not_found');
    const text = await operations.exportEvidence(policyId, operationContext(request));
    return { status: 200, rawBody: Buffer.from(text, 'utf8'), headers: { 'content-type': 'application/json; charset=utf-8' } };
  };
}

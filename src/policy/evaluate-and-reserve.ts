import { evaluatePolicy, type PolicyEvaluation, type PolicyRequest } from './evaluate.js';
import type { Policy } from './policy-types.js';
import type { LedgerEntry, UsageLedger } from './usage-ledger.js';

/**
 * evaluateAndReserve decides a request and, only when the decision is `allow`, reserves its
 * amount in the same synchronous step, so no other request can be checked between this one's
 * check and its reservation and two concurrent requests cannot overspend a budget together.
 * After an `ask` is approved, the caller reserves with `ledger.reserve(entry)` before signing.
 */
export function evaluateAndReserve(policy: Policy, request: PolicyRequest, ledger: UsageLedger, entry: LedgerEntry): PolicyEvaluation {
  if (ledger.policy !== policy) throw new Error('evaluateAndReserve: the ledger tracks another policy; call ledger.usePolicy(policy) first');
  assertEntryIsRequest(request, entry);
  const evaluation = evaluatePolicy(policy, request, ledger);
  if (evaluation.decision === 'allow') ledger.reserve(entry);
  return evaluation;
}



/** The reservation must count exactly what was decided; anything else is a programmer error. */
function assertEntryIsRequest(request: PolicyRequest, entry: LedgerEntry): void {
  const same =
    entry.agent === request.agent &&
    entry.cardId === request.cardId &&
    entry.merchant === request.merchant &&
    entry.currency === request.currency &&
    entry.amountMinor === request.amountMinor &&
    entry.schedule?.periodSeconds === request.schedule?.periodSeconds &&
    entry.schedule?.maxCharges === request.schedule?.maxCharges &&
    entry.atSeconds === request.nowSeconds;
  if (!same) throw new Error('evaluateAndReserve: the ledger entry does not describe the request');
}

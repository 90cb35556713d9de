/**
 * What the agent tried and was refused (issue 44 item 3): a request the policy, the pause or the
 * lockout refused is noted through CoreDeps.refused, with who asked, the terms and the reasons'
 * numbers, then the refusal goes on to the caller unchanged. Noting never delays or fails it.
 */
import type { AuthorizationRequest } from '../core/authorization-request.js';
import type { CoreDeps, OperationContext, RefusalRecord } from '../core/core-deps.js';
import { LatchError } from '../errors/latch-error.js';

/** The refusals the owner must see: the policy's, the brake's and the passphrase lockout's. */
export const NOTED_REFUSALS: ReadonlySet<string> = new Set(['policy_denied', 'daemon_paused', 'too_many_attempts']);

/** The terms of what was asked, as a refusal line shows them. */
export type RefusedTerms = Pick<RefusalRecord, 'operation' | 'cardId' | 'merchant' | 'amountMinor' | 'currency' | 'kind'> & { approvalId?: string };

/** termsOf is an authorization request's terms for its refusal line. */
export function termsOf(request: AuthorizationRequest, operation: string): RefusedTerms {
  return { operation, cardId: request.cardId, merchant: request.merchant, amountMinor: request.amountMinor, currency: request.currency, kind: request.kind };
}

/**
 * notingRefusals runs an operation; when it ends in one of NOTED_REFUSALS, the refusal is noted
 * (deps.refused) and thrown on as it was.
 */
export async function notingRefusals<T>(deps: Pick<CoreDeps, 'refused'>, terms: RefusedTerms, context: OperationContext, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof LatchError && NOTED_REFUSALS.has(error.code)) {
      try {
        deps.refused({ ...terms, code: error.code, rule: error.rule ?? null, reasons: error.reasons ?? [], principal: context.principal, caller: context.caller });
      } catch {
        // Noting is best effort: the refusal itself must reach the caller.
      }
    }
    throw error;
  }
}

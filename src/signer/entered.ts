/**
 * Entering a signing purpose (docs/decisions.md §42): each purpose checks here the state its caller
 * promised (the ledger entry, the terms, the call, the key's kind). Every caller checks the same
 * state first, in the turn it signs, and answers from the error table when it does not hold (what
 * concurrency or the data directory can change is a refusal, never this), so no input reaches a
 * purpose with it broken. Broken anyway, memory no longer matches what was promised: the daemon
 * stops (`signing_purpose_entered`) instead of answering 500 and going on.
 */
import { invariant } from '../errors/invariant.js';

/** entered stops the process unless condition holds; the detail (ids and a reason, nothing secret) is built only then. */
export function entered(condition: boolean, purpose: string, why: () => string): asserts condition {
  if (!condition) invariant(false, 'signing_purpose_entered', `${purpose}: ${why()}`);
}

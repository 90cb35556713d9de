/**
 * Entering a signing purpose with the state its caller promised (docs/decisions.md §42). Every
 * caller checks that state first, in the turn it signs, and answers from the error table; broken
 * anyway, memory no longer matches the promise, and the daemon stops instead of answering 500.
 */
import { invariant } from '../errors/invariant.js';

/** entered stops the process unless condition holds; the detail (ids and a reason, nothing secret) is built only then. */
export function entered(condition: boolean, purpose: string, why: () => string): asserts condition {
  if (!condition) invariant(false, 'signing_purpose_entered', `${purpose}: ${why()}`);
}

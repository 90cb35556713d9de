/**
 * What core tests pass for the safety steps they do not exercise. CoreDeps has no optional safety
 * step (docs/decisions.md §18.3), so a test says by name what it leaves out: allowEverything
 * (src/core/decision.ts), neverPaused (src/core/signing-pause.ts), and the approvals below.
 */
import { ApprovalBook } from '../../src/core/approval-book.js';
import type { ApprovalDeps } from '../../src/core/approval-deps.js';

/**
 * approvalsNeverAsked is the approval flow for a test whose decisions never ask: an empty book in
 * memory (a retry's lookup finds nothing), and any approval created or decided fails the test,
 * so an `ask` cannot go unnoticed.
 */
export function approvalsNeverAsked(): ApprovalDeps {
  const fail = (): never => {
    throw new Error('this test expects no approval to be asked for or decided');
  };
  return { book: new ApprovalBook(), checkPassphrase: fail, audit: fail };
}

/**
 * What core tests pass for the safety steps and recorders they do not exercise. CoreDeps has no
 * optional member (docs/decisions.md §18.3, §44), so a test says by name what it leaves out:
 * allowEverything (src/core/decision.ts), neverPaused (src/core/signing-pause.ts), and the fakes below.
 */
import { ApprovalBook } from '../../src/core/approval-book.js';
import type { ApprovalDeps } from '../../src/core/approval-deps.js';
import type { MandateDeps } from '../../src/core/core-deps.js';
import type { X402Deps } from '../../src/core/x402-deps.js';
import { X402Index, type FollowedLedger } from '../../src/core/x402-index.js';
import { APPROVALS_PENDING_MAX_PER_AGENT_DEFAULT } from '../../src/datadir/config.js';

const unexpected = (what: string) => (): never => {
  throw new Error(`this test expects no ${what}`);
};

/**
 * approvalsNeverAsked is the approval flow for a test whose decisions never ask: an empty book in
 * memory (a retry's lookup finds nothing), the daemon's default cap, and any approval created,
 * decided or announced fails the test, so an `ask` cannot go unnoticed.
 */
export function approvalsNeverAsked(): ApprovalDeps {
  const fail = unexpected('approval to be asked for or decided');
  return { book: new ApprovalBook(), checkPassphrase: fail, audit: fail, pendingMaxPerCaller: () => APPROVALS_PENDING_MAX_PER_AGENT_DEFAULT, notify: fail };
}

/** notifyNobody is the notifier of a test that asks for approvals but does not read who was told. */
export const notifyNobody = (): void => undefined;

/** outcomesIgnored drops what became of each window sent (the daemon's outcome audit line), for a test that does not read it. */
export const outcomesIgnored = (): void => undefined;

/** refusalsIgnored drops the refusal notes the owner sees (issue 44 item 3), for a test that does not read them. */
export const refusalsIgnored = (): void => undefined;

/** noCardLabels names no card's label in a mandate (its instrument then has no description). */
export const noCardLabels: MandateDeps = { cardLabel: async () => undefined };

/**
 * x402NeverAsked is the x402 guard of a test that makes no x402 payment: an empty index that
 * follows the ledger (expiry finds nothing), and the assets and audit fail the test when used.
 */
export function x402NeverAsked(ledger: FollowedLedger): X402Deps {
  const fail = unexpected('x402 payment');
  return { assets: fail, audit: fail, index: new X402Index(ledger), running: new Map() };
}

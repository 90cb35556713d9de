/**
 * What the approval flow needs from the daemon, as plain functions: the book and the lockout
 * (durable in the state journal), the owner's passphrase check, the audit log and the notifier.
 * The core reads no file itself.
 */
import type { Approval } from './approval.js';
import type { ApprovalBook } from './approval-book.js';
import type { LocalCaller } from './operation-context.js';
import type { PassphraseLockout } from './passphrase-lockout.js';
import type { Principal } from './principal.js';

/**
 * The audit lines of docs/decisions.md §15.4, and the two of §20: an approval the cloud refused
 * (`approval_failed`) and one given but not applied (`approval_not_applied`, still pending).
 * `approval_approved` is written only once the approved request is signed and registered.
 */
export type ApprovalAuditOperation = 'approval_requested' | 'approval_approved' | 'approval_failed' | 'approval_not_applied' | 'approval_denied' | 'approval_expired';

/** One approval audit line: what happened to which approval, and who made it happen. */
export interface ApprovalAudit {
  operation: ApprovalAuditOperation;
  approval: Approval;
  /** The local request that caused it; undefined for an expiry noticed by the daemon itself. */
  caller: LocalCaller | undefined;
  /** Who acted: the agent that asked, or the owner that decided (expiry: the owner's policy). */
  principal: Principal;
  /** Why an approval failed or was not applied: the error code. */
  code?: string;
}

/** What the owner's approval passphrase says about a presented one. */
/** `missing`: one is set but none was presented (refused, not counted as a guess). */
export type PassphraseCheck = 'not_set' | 'right' | 'wrong' | 'missing';

export interface ApprovalDeps {
  book: ApprovalBook;
  lockout: PassphraseLockout;
  /** Checks a presented passphrase against the stored hash (never logs or keeps it). */
  checkPassphrase(candidate: string | undefined): Promise<PassphraseCheck>;
  /** Appends an approval line to the audit log durably. */
  audit(record: ApprovalAudit): Promise<void>;
  /** Tells the owner a new approval waits (best effort: never throws, never blocks). */
  notify?(approval: Approval): void;
}

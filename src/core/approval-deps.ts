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
  /** The passkey that proved the owner's presence for this decision (the owner console), when one did. */
  presenceCredentialId?: string;
  /** Why an approval failed or was not applied: the error code. */
  code?: string;
}

/**
 * The owner's passphrase as it is set now: an id that names it (from its salt; neither the
 * passphrase nor its hash) and a check of a presented one (slow; never logs or keeps it).
 */
export interface OwnerPassphrase {
  id: string;
  verify(candidate: string): Promise<boolean>;
}

export interface ApprovalDeps {
  book: ApprovalBook;
  lockout: PassphraseLockout;
  /** The owner's passphrase now, or undefined when none is set (read at each approval). */
  passphrase(): OwnerPassphrase | undefined;
  /** Appends an approval line to the audit log durably. */
  audit(record: ApprovalAudit): Promise<void>;
  /** How many pending approvals one caller may have (config.json's approvals_pending_max_per_agent; 20 when absent). */
  pendingMaxPerCaller?(): number;
  /** Tells the owner a new approval waits (best effort: never throws, never blocks). */
  notify?(approval: Approval): void;
}

/**
 * What the approval flow needs from the daemon, as plain functions: the book (durable in the state
 * journal), the owner's passphrase check, the audit log and the notifier. The core reads no file
 * itself, and does not check the passphrase itself: who the owner is, and whether it is present, is
 * decided where every other credential is (src/owner/, with the front door, docs/decisions.md §28.12).
 */
import type { Approval } from './approval.js';
import type { ApprovalBook } from './approval-book.js';
import type { LocalCaller } from './operation-context.js';
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

export interface ApprovalDeps {
  book: ApprovalBook;
  /**
   * The owner's one passphrase check (src/owner/owner-presence.ts, checkOwnerPassphrase), asked when
   * the front door did not prove presence: resolves when the right passphrase was presented or none
   * is set; throws owner_presence_required (none sent), invalid_passphrase or too_many_attempts.
   * It answers which (`right`, `not_set`); the approval refuses any other answer.
   */
  checkPassphrase(candidate: string | undefined): Promise<'right' | 'not_set'>;
  /** Appends an approval line to the audit log durably. */
  audit(record: ApprovalAudit): Promise<void>;
  /** How many pending approvals one caller may have (config.json's approvals_pending_max_per_agent, 20 by default). */
  pendingMaxPerCaller(): number;
  /** Tells the owner a new approval waits (best effort: never throws, never blocks). */
  notify(approval: Approval): void;
}

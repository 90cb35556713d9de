/**
 * The daemon's side of human approval: the approval book in the state journal, the owner's
 * passphrase check (src/owner/), the audit lines and the notifier (docs/decisions.md §15.4).
 */
import type { ApprovalBook } from '../core/approval-book.js';
import type { ApprovalAudit, ApprovalDeps } from '../core/approval-deps.js';
import { principalName } from '../core/principal.js';
import type { AuditEntry } from '../datadir/audit-entry.js';
import { formatMinor } from '../money/amount.js';
import { approvalNotifier } from './approval-notify.js';
import { APPROVALS_PENDING_MAX_PER_AGENT_DEFAULT } from '../datadir/config.js';
import type { OwnerPresence } from '../owner/owner-presence.js';
import type { DaemonServices } from './services.js';

/** bindApprovals makes the approval dependencies; call it before the state store opens. */
export function bindApprovals(services: DaemonServices, book: ApprovalBook, presence: OwnerPresence, appendAudit: (entry: AuditEntry) => Promise<unknown>): ApprovalDeps {
  return {
    book,
    checkPassphrase: (candidate) => presence.checkPassphrase(candidate),
    audit: async (record) => {
      await appendAudit(approvalAuditEntry(record));
    },
    pendingMaxPerCaller: () => services.config().approvals_pending_max_per_agent ?? APPROVALS_PENDING_MAX_PER_AGENT_DEFAULT,
    notify: approvalNotifier(services),
  };
}

/** approvalAuditEntry is the audit line of an approval event: the id and the exact request's SHA-256, never a passphrase. */
export function approvalAuditEntry(record: ApprovalAudit): AuditEntry {
  const { approval } = record;
  return {
    operation: record.operation,
    policy_id: approval.authorization?.policyId ?? null,
    card_id: approval.request.cardId,
    merchant: approval.request.merchant,
    amount: formatMinor(approval.request.amountMinor),
    currency: approval.request.currency,
    request_id: record.caller?.requestId ?? null,
    user_agent: record.caller?.userAgent ?? null,
    agent: principalName(record.principal),
    approval_id: approval.id,
    request_sha256: approval.requestSha256,
    requested_by: principalName(approval.principal),
    kind: approval.request.kind,
    rule: approval.rule,
    ...(record.presenceCredentialId !== undefined && { passkey_id: record.presenceCredentialId }),
    ...(record.code !== undefined && { code: record.code }),
  };
}

/**
 * The daemon's side of human approval: the approval book and the passphrase lockout in the state
 * journal, the owner's passphrase file, the audit lines and the notifier (docs/decisions.md §15.4).
 */
import { ApprovalBook } from '../core/approval-book.js';
import type { ApprovalAudit, ApprovalDeps, OwnerPassphrase } from '../core/approval-deps.js';
import { PassphraseLockout } from '../core/passphrase-lockout.js';
import { principalName } from '../core/principal.js';
import { approvalPassphraseId, approvalPassphrasePath, readApprovalPassphrase, verifyApprovalPassphraseAsync, type StoredApprovalPassphrase } from '../datadir/approval-passphrase.js';
import type { AuditEntry } from '../datadir/audit-entry.js';
import { formatMinor } from '../money/amount.js';
import { approvalNotifier } from './approval-notify.js';
import { APPROVALS_PENDING_MAX_PER_AGENT_DEFAULT } from '../datadir/config.js';
import type { DaemonServices } from './services.js';

/** bindApprovals makes the approval dependencies; call it before the state store opens. */
export function bindApprovals(services: DaemonServices, appendAudit: (entry: AuditEntry) => Promise<unknown>): ApprovalDeps {
  return {
    book: new ApprovalBook(services.stateStore),
    lockout: new PassphraseLockout(services.stateStore),
    passphrase: ownerPassphrase(services),
    audit: async (record) => {
      await appendAudit(approvalAuditEntry(record));
    },
    pendingMaxPerCaller: () => services.config().approvals_pending_max_per_agent ?? APPROVALS_PENDING_MAX_PER_AGENT_DEFAULT,
    notify: approvalNotifier(services),
  };
}

/**
 * ownerPassphrase returns the getter of the owner's passphrase. The file is looked at on every
 * call (services re-read it when it changed), so `latch approvals passphrase set|clear` needs no
 * restart; an unsafe or damaged file throws (503), so approvals fail closed rather than needing no
 * passphrase. The answer is kept for as long as the stored hash is the same one, so that the
 * question every owner request asks (is presence configured?) costs no read and no hash.
 */
function ownerPassphrase(services: DaemonServices): () => OwnerPassphrase | undefined {
  const storedPassphrase = services.watchedFile(approvalPassphrasePath(services.home), () => readApprovalPassphrase(services.home));
  let known: { stored: StoredApprovalPassphrase; answer: OwnerPassphrase } | undefined;
  return () => {
    const stored = storedPassphrase();
    if (stored === undefined) return undefined;
    if (known?.stored !== stored) known = { stored, answer: { id: approvalPassphraseId(stored), verify: (candidate) => verifyApprovalPassphraseAsync(stored, candidate) } };
    return known.answer;
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

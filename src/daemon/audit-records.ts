/**
 * The audit lines of the two kinds of signature (docs/decisions.md §11), each mapped in one place: a
 * window or revocation signed by the core, and an upstream request signed by the cloud client
 * (the daemon's requests and `latch setup`'s enrollment alike). Every line names the caller in
 * `agent`: the owner or the agent's name.
 */
import type { RequestSignatureRecord } from '../cloud/cloud-client.js';
import type { RefusalRecord, SignatureAudit, SignatureOutcome } from '../core/core-deps.js';
import { OWNER, principalName } from '../core/principal.js';
import type { AuditEntry } from '../datadir/audit-entry.js';
import { formatMinor } from '../money/amount.js';

/** signatureEntry is the audit line of a window or revocation signature. */
export function signatureEntry(signature: SignatureAudit): AuditEntry {
  return {
    operation: signature.operation,
    policy_id: signature.policyId,
    card_id: signature.cardId,
    merchant: signature.merchant,
    amount: signature.amountMinor === null ? null : formatMinor(signature.amountMinor),
    currency: signature.currency,
    key_id: signature.keyId,
    request_id: signature.caller.requestId,
    user_agent: signature.caller.userAgent,
    agent: principalName(signature.principal),
    ...(signature.reference !== undefined && { reference: signature.reference }),
    ...(signature.requestSha256 !== undefined && { request_sha256: signature.requestSha256 }),
    ...(signature.mandate !== undefined && {
      mandate_id: signature.mandate.mandateId,
      open_checkout_sd_hash: signature.mandate.openCheckoutSdHash,
      open_payment_sd_hash: signature.mandate.openPaymentSdHash,
      agent_key_thumbprint: signature.mandate.agentKeyThumbprint,
    }),
  };
}

/**
 * requestSignatureEntry is the audit line of an upstream request signature. A request with no
 * local caller is the owner's own: `latch setup` enrolling the device.
 */
export function requestSignatureEntry(signed: RequestSignatureRecord): AuditEntry {
  return {
    operation: 'sign_request',
    key_id: signed.keyId,
    request_id: signed.caller?.requestId ?? null,
    user_agent: signed.caller?.userAgent ?? null,
    method: signed.method,
    path: signed.path,
    agent: principalName(signed.caller?.principal ?? OWNER),
  };
}

/**
 * requestAuditEntries are the audit lines of one upstream request signature: the request's own
 * line, or, when the request carries a window signed with the same key, one line for both — the
 * window's fields with the request's method and path (docs/decisions.md §16.3). The window's
 * operation names the line, so `latch audit --operation authorize` still finds every window.
 */
export function requestAuditEntries(signed: RequestSignatureRecord): AuditEntry[] {
  if (signed.window === undefined) return [requestSignatureEntry(signed)];
  if (signed.window.keyId !== signed.keyId) return [signatureEntry(signed.window), requestSignatureEntry(signed)];
  return [{ ...signatureEntry(signed.window), method: signed.method, path: signed.path }];
}

/**
 * outcomeEntry is the audit line after a window was sent to the cloud: `registered`, `refused`
 * (with the cloud's code) or `unknown` (no answer), so a refused authorization no longer looks
 * like a granted one in the log.
 */
export function outcomeEntry(record: SignatureOutcome): AuditEntry {
  return {
    operation: 'authorization_outcome',
    policy_id: record.policyId,
    outcome: record.outcome,
    code: record.code,
    agent: principalName(record.principal),
  };
}

/**
 * refusalEntry is the audit line of a request the policy, the pause or the lockout refused
 * (issue 44 item 3): who asked, the terms, the code, the rule and the reasons with their numbers.
 */
export function refusalEntry(record: RefusalRecord): AuditEntry {
  return {
    operation: 'refused',
    requested: record.operation,
    code: record.code,
    rule: record.rule,
    reasons: record.reasons.join('; ') || null,
    card_id: record.cardId,
    merchant: record.merchant,
    amount: record.amountMinor === null ? null : formatMinor(record.amountMinor),
    currency: record.currency,
    kind: record.kind,
    ...(record.approvalId !== undefined && { approval_id: record.approvalId }),
    request_id: record.caller?.requestId ?? null,
    user_agent: record.caller?.userAgent ?? null,
    agent: principalName(record.principal),
  };
}

/** What a flood of one kind of refusal left unwritten in one period (RefusalAuditor). */
export interface RefusalsCounted {
  agent: string;
  code: string;
  rule: string | null;
  count: number;
  since: string;
  until: string;
}

/** refusalsCountedEntry is the one line that counts the refusals of a flood not written one by one. */
export function refusalsCountedEntry(counted: RefusalsCounted): AuditEntry {
  return { operation: 'refusals_counted', agent: counted.agent, code: counted.code, rule: counted.rule, count: counted.count, since: counted.since, until: counted.until };
}

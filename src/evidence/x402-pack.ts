/**
 * The evidence pack of an x402 payment (shared/spec/x402.md §3, docs/x402.md): the same v1 pack,
 * signed whole by the device key, with an `x402` member in place of the window and the cloud —
 * the receipt, the requirements and their SHA-256, the resource, the payload's SHA-256 and the
 * settle_response as the agent reported it (`reported_by: "agent"`: Latch checks no chain).
 */
import { principalName } from '../core/principal.js';
import type { AuthorizationEntry } from '../core/authorization-ledger.js';
import type { OperationContext } from '../core/core-deps.js';
import { jwkThumbprint, publicJwk } from '../crypto/jwk.js';
import { LatchError } from '../errors/latch-error.js';
import { currencyDecimals, formatMinor } from '../money/amount.js';
import { isoSeconds } from '../time/iso-time.js';
import type { Approval } from '../core/approval.js';
import type { CoreDeps } from '../core/core-deps.js';
import type { ReadingDevice } from '../operations/cloud-reads.js';
import type { AuditExcerpt } from './audit-excerpt.js';
import { EVIDENCE_TYPE } from './pack.js';
import { signPack } from './sign-pack.js';


/** What an x402 pack reads (a part of build-pack.ts's EvidenceSources). */
export interface X402EvidenceSources {
  deps: CoreDeps;
  device(): Pick<ReadingDevice, 'key'>;
  approval(id: string): Approval | undefined;
  auditExcerpt(ids: { policyId: string; approvalId: string | null }): AuditExcerpt;
}

/** exportX402Evidence is exportEvidence for an x402 entry: the pack's text, its signature audited first. */
export async function exportX402Evidence(sources: X402EvidenceSources, entry: AuthorizationEntry, context: OperationContext): Promise<string> {
  const detail = entry.x402;
  if (detail === undefined || entry.jws === undefined) throw new LatchError('evidence_unavailable', { message: 'This x402 authorization has no receipt kept.' });
  if (context.principal.kind === 'agent' && entry.agent !== principalName(context.principal)) throw new LatchError('authorization_not_found');
  const device = sources.device();
  if (device.key.keyId !== detail.keyId) throw new LatchError('evidence_unavailable', { message: 'This authorization was signed with a device key this device no longer holds.' });
  await sources.deps.audit({
    operation: 'export_evidence',
    policyId: entry.policyId,
    cardId: null,
    merchant: entry.merchant,
    amountMinor: entry.amountMinor,
    currency: entry.currency,
    keyId: device.key.keyId,
    caller: context.caller,
    principal: context.principal,
  });
  const decimals = currencyDecimals(entry.currency) ?? 2;
  const jwk = publicJwk(device.key.publicKey);
  const request = x402RequestOf(entry);
  const approval = detail.approvalId === null ? undefined : sources.approval(detail.approvalId);
  const body = {
    v: 1,
    type: EVIDENCE_TYPE,
    policy_id: entry.policyId,
    jwks: { keys: [{ ...jwk, kid: jwkThumbprint(jwk) }] },
    x402: {
      receipt: entry.jws,
      status: detail.state,
      requirements: detail.requirements,
      requirements_sha256: detail.requirementsSha256,
      resource: detail.resource,
      payload_sha256: detail.payloadSha256,
      amount: formatMinor(entry.amountMinor, decimals),
      currency: entry.currency,
      settled_amount: detail.settledMinor === null ? null : formatMinor(detail.settledMinor, decimals),
      settlement:
        detail.report === null
          ? null
          : detail.report.kind === 'settle_response'
            ? { settle_response: detail.report.settleResponse, reported_by: 'agent' }
            : { outcome: detail.report.outcome, reported_by: 'agent' },
    },
    request: { ...request, agent: entry.agent, received_at: isoSeconds(detail.receivedAtSeconds), sha256: detail.requestSha256 },
    decision: { decision: detail.decision.decision, rule: detail.decision.rule, reasons: detail.decision.reasons, sha256: detail.decision.policySha256 },
    approval:
      detail.approvalId === null
        ? null
        : approval === undefined
          ? { approval_id: detail.approvalId, status: 'approved', decided_at: null, request_sha256: detail.requestSha256 }
          : { approval_id: approval.id, status: approval.status, decided_at: approval.decidedAtSeconds === null ? null : isoSeconds(approval.decidedAtSeconds), request_sha256: approval.requestSha256 },
    audit: sources.auditExcerpt({ policyId: entry.policyId, approvalId: detail.approvalId }),
    exported_at: isoSeconds(sources.deps.nowSeconds()),
  };
  const bodyText = JSON.stringify(body);
  const jws = signPack(sources.deps, entry.policyId, entry.jws, device.key.keyId, bodyText);
  return `${bodyText.slice(0, -1)},"jws":${JSON.stringify(jws)}}\n`;
}

/** x402RequestOf is the X402Request the entry was decided on, rebuilt from what it kept (its SHA-256 is detail.requestSha256). */
export function x402RequestOf(entry: AuthorizationEntry): Record<string, unknown> {
  const detail = entry.x402 as NonNullable<AuthorizationEntry['x402']>;
  return {
    kind: 'x402',
    cardId: null,
    merchant: entry.merchant,
    amountMinor: entry.amountMinor,
    currency: entry.currency,
    ...(detail.reference !== null && { reference: detail.reference }),
    x402: { resource: detail.resource, requirements: detail.requirements, symbol: detail.symbol, decimals: detail.decimals },
  };
}

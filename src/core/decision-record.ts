/**
 * What the pipeline keeps, at decision time, of each authorization it signs, so that its evidence
 * pack can be made later (docs/decisions.md §22): the exact request and its SHA-256, when it was
 * received, the window payload that was signed and the key that signed it, and why it was allowed.
 * It rides in the authorization ledger's own record (state.journal), written before the window is
 * signed, so keeping it costs no write of its own.
 */
import type { WindowRequest } from './authorization-request.js';
import type { PolicyWindowPayload } from './window-payload.js';
import { mandatesJson, parseMandates, type Ap2MandateRecord } from '../ap2/mandate-record.js';

export type { Ap2MandateRecord };

/** Why the request was allowed: the policy's answer, rule, reasons and its SHA-256 (null without a policy). */
export interface RecordedDecision {
  decision: 'allow' | 'ask';
  rule: string | null;
  reasons: string[];
  policySha256: string | null;
}

/** The decision-time record of one authorization. */
export interface DecisionRecord {
  request: WindowRequest;
  /** requestSha256(request): what the window's and the approval's audit lines name. */
  requestSha256: string;
  /** When the request reached the daemon: the approval's creation for an approved one. */
  receivedAtSeconds: number;
  /** The signed payload: Ed25519 is deterministic, so the key re-makes the exact JWS from it. */
  window: PolicyWindowPayload;
  keyId: string;
  decision: RecordedDecision;
  /** The approval that satisfied an `ask`, if any. */
  approvalId: string | null;
  /** An AP2 mandate request's signed open mandates. */
  mandates?: Ap2MandateRecord;
}

const HEX64 = /^[0-9a-f]{64}$/;

/** decisionRecordJson is the record as plain JSON for the state journal. */
export function decisionRecordJson(record: DecisionRecord): Record<string, unknown> {
  return {
    request: record.request,
    request_sha256: record.requestSha256,
    received_at: record.receivedAtSeconds,
    window: record.window,
    key_id: record.keyId,
    decision: { decision: record.decision.decision, rule: record.decision.rule, reasons: record.decision.reasons, policy_sha256: record.decision.policySha256 },
    approval_id: record.approvalId,
    ...(record.mandates !== undefined && { ap2_mandates: mandatesJson(record.mandates) }),
  };
}

/**
 * parseDecisionRecord reads a replayed record, or throws on a malformed one. The request and the
 * window are this daemon's own values, written by decisionRecordJson; their fields are checked
 * again wherever a pack is verified.
 */
export function parseDecisionRecord(value: unknown): DecisionRecord {
  const record = object(value);
  const decision = object(record['decision']);
  const reasons = decision['reasons'];
  const ok =
    typeof record['request_sha256'] === 'string' &&
    HEX64.test(record['request_sha256']) &&
    Number.isSafeInteger(record['received_at']) &&
    typeof record['key_id'] === 'string' &&
    (decision['decision'] === 'allow' || decision['decision'] === 'ask') &&
    (decision['rule'] === null || typeof decision['rule'] === 'string') &&
    Array.isArray(reasons) &&
    reasons.every((reason) => typeof reason === 'string') &&
    (decision['policy_sha256'] === null || (typeof decision['policy_sha256'] === 'string' && HEX64.test(decision['policy_sha256']))) &&
    (record['approval_id'] === null || typeof record['approval_id'] === 'string');
  if (!ok) throw new Error('malformed decision record');
  const window = object(record['window']) as unknown as PolicyWindowPayload;
  const request = object(record['request']) as unknown as WindowRequest;
  if (typeof window.policy_id !== 'string' || typeof request.kind !== 'string') throw new Error('malformed decision record');
  return {
    request,
    requestSha256: record['request_sha256'] as string,
    receivedAtSeconds: record['received_at'] as number,
    window,
    keyId: record['key_id'] as string,
    decision: { decision: decision['decision'] as 'allow' | 'ask', rule: decision['rule'] as string | null, reasons: reasons as string[], policySha256: decision['policy_sha256'] as string | null },
    approvalId: record['approval_id'] as string | null,
    ...(record['ap2_mandates'] !== undefined && { mandates: parseMandates(record['ap2_mandates']) }),
  };
}

function object(value: unknown): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error('malformed decision record');
  return value as Record<string, unknown>;
}

/**
 * The x402 detail and its transitions as state.journal holds them (plain JSON, snake_case), and
 * back, checked: a replayed record of another shape stops the daemon rather than count wrongly.
 */
import { X402_STATES, isMember } from './model.js';
import type { X402Detail, X402Report, X402Transition } from './x402-states.js';
import type { X402Requirements, X402Resource } from '../x402/requirements.js';

const HEX64 = /^[0-9a-f]{64}$/;

/** x402DetailJson is the detail as the entry's record carries it. */
export function x402DetailJson(detail: X402Detail): Record<string, unknown> {
  return {
    state: detail.state,
    requirements: detail.requirements,
    requirements_sha256: detail.requirementsSha256,
    resource: detail.resource,
    reference: detail.reference,
    symbol: detail.symbol,
    decimals: detail.decimals,
    request_sha256: detail.requestSha256,
    received_at: detail.receivedAtSeconds,
    decision: { decision: detail.decision.decision, rule: detail.decision.rule, reasons: detail.decision.reasons, policy_sha256: detail.decision.policySha256 },
    approval_id: detail.approvalId,
    key_id: detail.keyId,
    idempotency: detail.idempotency === null ? null : { scope: detail.idempotency.scope, key: detail.idempotency.key, fingerprint_sha256: detail.idempotency.fingerprintSha256 },
    payload_sha256: detail.payloadSha256,
    bound_at: detail.boundAtSeconds,
    report: detail.report === null ? null : reportJson(detail.report),
    reported_at: detail.reportedAtSeconds,
    settled_minor: detail.settledMinor,
    ended_at: detail.endedAtSeconds,
  };
}

/** parseX402Detail reads the detail of a replayed entry record, or throws. */
export function parseX402Detail(value: unknown): X402Detail {
  const record = object(value);
  const decision = object(record['decision']);
  const idempotency = record['idempotency'] === null ? null : object(record['idempotency']);
  const reasons = decision['reasons'];
  const detail: X402Detail = {
    state: record['state'] as X402Detail['state'],
    requirements: object(record['requirements']) as unknown as X402Requirements,
    requirementsSha256: record['requirements_sha256'] as string,
    resource: object(record['resource']) as unknown as X402Resource,
    reference: (record['reference'] ?? null) as string | null,
    symbol: record['symbol'] as string,
    decimals: record['decimals'] as number,
    requestSha256: record['request_sha256'] as string,
    receivedAtSeconds: record['received_at'] as number,
    decision: { decision: decision['decision'] as 'allow' | 'ask', rule: decision['rule'] as string | null, reasons: reasons as string[], policySha256: decision['policy_sha256'] as string | null },
    approvalId: record['approval_id'] as string | null,
    keyId: record['key_id'] as string,
    idempotency: idempotency === null ? null : { scope: idempotency['scope'] as string, key: idempotency['key'] as string, fingerprintSha256: idempotency['fingerprint_sha256'] as string },
    payloadSha256: record['payload_sha256'] as string | null,
    boundAtSeconds: record['bound_at'] as number | null,
    report: record['report'] === null ? null : parseReport(record['report']),
    reportedAtSeconds: record['reported_at'] as number | null,
    settledMinor: record['settled_minor'] as number | null,
    endedAtSeconds: record['ended_at'] as number | null,
  };
  const whole = (n: unknown): boolean => Number.isSafeInteger(n) && (n as number) >= 0;
  const wholeOrNull = (n: unknown): boolean => n === null || whole(n);
  const ok =
    isMember(X402_STATES, detail.state) &&
    typeof detail.requirements.amount === 'string' &&
    typeof detail.requirements.payTo === 'string' &&
    HEX64.test(String(detail.requirementsSha256)) &&
    typeof detail.resource.url === 'string' &&
    typeof detail.symbol === 'string' &&
    (detail.reference === null || typeof detail.reference === 'string') &&
    whole(detail.decimals) &&
    HEX64.test(String(detail.requestSha256)) &&
    whole(detail.receivedAtSeconds) &&
    (detail.decision.decision === 'allow' || detail.decision.decision === 'ask') &&
    Array.isArray(reasons) &&
    typeof detail.keyId === 'string' &&
    (detail.payloadSha256 === null || HEX64.test(String(detail.payloadSha256))) &&
    wholeOrNull(detail.boundAtSeconds) &&
    wholeOrNull(detail.reportedAtSeconds) &&
    wholeOrNull(detail.settledMinor) &&
    wholeOrNull(detail.endedAtSeconds);
  if (!ok) throw new Error('malformed x402 entry');
  return detail;
}

/** x402TransitionJson is a transition as its journal record carries it. */
export function x402TransitionJson(transition: X402Transition): Record<string, unknown> {
  return {
    to: transition.to,
    at: transition.atSeconds,
    ...(transition.to === 'bound' && { payload_sha256: transition.payloadSha256 }),
    ...((transition.to === 'settled' || transition.to === 'failed' || transition.to === 'reported') && { report: reportJson(transition.report) }),
    ...(transition.to === 'settled' && { settled_minor: transition.settledMinor }),
  };
}

/** parseX402Transition reads a replayed transition, or throws. */
export function parseX402Transition(value: unknown): X402Transition {
  const record = object(value);
  const at = record['at'];
  if (!Number.isSafeInteger(at) || (at as number) < 0) throw new Error('malformed x402 transition');
  const atSeconds = at as number;
  switch (record['to']) {
    case 'bound':
      if (!HEX64.test(String(record['payload_sha256']))) throw new Error('malformed x402 transition');
      return { to: 'bound', atSeconds, payloadSha256: record['payload_sha256'] as string };
    case 'settled': {
      const settled = record['settled_minor'];
      if (!Number.isSafeInteger(settled) || (settled as number) < 0) throw new Error('malformed x402 transition');
      return { to: 'settled', atSeconds, report: parseReport(record['report']), settledMinor: settled as number };
    }
    case 'failed':
    case 'reported':
      return { to: record['to'], atSeconds, report: parseReport(record['report']) };
    case 'released':
    case 'expired':
      return { to: record['to'], atSeconds };
    default:
      throw new Error('malformed x402 transition');
  }
}

function reportJson(report: X402Report): Record<string, unknown> {
  return report.kind === 'settle_response' ? { settle_response: report.settleResponse } : { outcome: report.outcome };
}

function parseReport(value: unknown): X402Report {
  const record = object(value);
  if (record['outcome'] === 'verify_failed' || record['outcome'] === 'transport_error') return { kind: 'outcome', outcome: record['outcome'] };
  return { kind: 'settle_response', settleResponse: object(record['settle_response']) };
}

function object(value: unknown): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error('malformed x402 record');
  return value as Record<string, unknown>;
}

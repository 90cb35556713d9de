/**
 * Making an evidence pack (shared/spec/evidence.md; docs/decisions.md §22): the facts the ledger
 * kept at decision time, the approval, the audit lines and what the cloud says now, signed whole
 * by the device key. The owner gets any authorization's pack, an agent only its own.
 */
import { principalName } from '../core/principal.js';
import type { Approval } from '../core/approval.js';
import type { AuthorizationEntry } from '../core/authorization-ledger.js';
import { cloudCall, type CoreDeps, type OperationContext } from '../core/core-deps.js';
import type { ReadingDevice } from '../operations/cloud-reads.js';
import type { Ap2MandateRecord, DecisionRecord } from '../core/decision-record.js';
import { mandatesWire } from '../ap2/mandate-wire.js';
import type { MandateJwk } from '../ap2/mandate-jwks.js';
import type { Authorization } from '../core/model.js';
import type { Transaction } from '../operations/read-model.js';
import { jwkThumbprint, publicJwk } from '../crypto/jwk.js';
import { LatchError } from '../errors/latch-error.js';
import { currencyDecimals, formatMinor } from '../money/amount.js';
import { isoSeconds } from '../time/iso-time.js';
import type { AuditExcerpt } from './audit-excerpt.js';
import { EVIDENCE_TYPE, type EvidenceAp2, type EvidenceApproval, type EvidenceBody, type EvidenceCloud, type EvidenceTransaction } from './pack.js';
import { requestView } from './request-view.js';
import { signPack } from './sign-pack.js';
import { exportX402Evidence } from './x402-pack.js';

/** What making a pack reads. */
export interface EvidenceSources {
  deps: CoreDeps;
  /** The enrolled device, with the cloud's reads (the transactions charged under the window). */
  device(): ReadingDevice;
  ledger: { get(policyId: string): AuthorizationEntry | undefined };
  /** The approval with this id, while the approval book keeps it. */
  approval(id: string): Approval | undefined;
  /** The audit lines about the authorization and its approval. */
  auditExcerpt(ids: { policyId: string; approvalId: string | null }): AuditExcerpt;
  /** The public mandate key with this kid, current or retired (AP2 packs, docs/ap2.md). */
  mandateKey?(kid: string): MandateJwk | undefined;
}

/** How many pages of the card's transactions (100 each, newest first) a pack reads at most. */
export const EVIDENCE_TRANSACTION_PAGES_MAX = 10;
/** Transactions older than the window's start by more than this cannot be charges under it. */
const CLOCK_SLACK_SECONDS = 300;

/**
 * exportEvidence returns the pack's text (one line of JSON and a newline). Its signature is
 * audited before it is made, like every signature of the device key.
 */
export async function exportEvidence(sources: EvidenceSources, policyId: string, context: OperationContext): Promise<string> {
  const entry = sources.ledger.get(policyId);
  if (entry === undefined || entry.state === 'failed') throw new LatchError('authorization_not_found');
  // Rolled back before it left: the ledger promises this window is never sent, so no pack hands it out.
  if (entry.state === 'unregistered') throw new LatchError('evidence_unavailable', { message: 'This window was never registered and is never sent, so there is no evidence to export.' });
  if (context.principal.kind === 'agent' && entry.agent !== principalName(context.principal)) throw new LatchError('authorization_not_found');
  // An x402 payment has no window and no cloud: its own pack (evidence/x402-pack.ts).
  if (entry.x402 !== undefined) return exportX402Evidence(sources, entry, context);
  const facts = entry.evidence;
  if (facts === undefined) throw new LatchError('evidence_unavailable', { message: 'This authorization was signed before this device kept evidence packs.' });
  if (entry.jws === undefined) throw new LatchError('evidence_unavailable', { message: 'This device did not keep the signature of this authorization\'s window (signed before it kept them), so there is no pack to export.' });
  const device = sources.device();
  if (device.key.keyId !== facts.keyId) throw new LatchError('evidence_unavailable', { message: 'This authorization was signed with a device key this device no longer holds.' });
  const cloud = await cloudFacts(device, facts, context, sources.deps.nowSeconds);
  const { window } = facts;
  await sources.deps.audit({
    operation: 'export_evidence',
    policyId,
    cardId: window.card_id ?? null,
    merchant: window.merchant,
    amountMinor: facts.request.amountMinor,
    currency: window.currency,
    keyId: device.key.keyId,
    caller: context.caller,
    principal: context.principal,
  });
  const audit = sources.auditExcerpt({ policyId, approvalId: facts.approvalId });
  const jwk = publicJwk(device.key.publicKey);
  const body: EvidenceBody = {
    v: 1,
    type: EVIDENCE_TYPE,
    policy_id: policyId,
    jwks: { keys: [{ ...jwk, kid: jwkThumbprint(jwk) }] },
    // The JWS that was signed and registered, as the ledger kept it: a pack never signs a window again.
    window: { jws: entry.jws, payload: window },
    request: requestView(facts.request, entry.agent, facts.receivedAtSeconds, facts.requestSha256),
    decision: { decision: facts.decision.decision, rule: facts.decision.rule, reasons: facts.decision.reasons, sha256: facts.decision.policySha256 },
    approval: approvalView(sources, facts),
    audit,
    cloud: { ...cloud, registration: registrationOf(audit, policyId) },
    ...(facts.mandates !== undefined && { ap2: ap2View(sources, policyId, facts.mandates) }),
    exported_at: isoSeconds(sources.deps.nowSeconds()),
  };
  const bodyText = JSON.stringify(body);
  const jws = signPack(sources.deps, policyId, entry.jws, device.key.keyId, bodyText);
  return `${bodyText.slice(0, -1)},"jws":${JSON.stringify(jws)}}\n`;
}

/** ap2View is an AP2 pack's member: the mandates as answered, and the key that signed them (none if the directory lost it). */
function ap2View(sources: EvidenceSources, policyId: string, mandates: Ap2MandateRecord): EvidenceAp2 {
  const key = sources.mandateKey?.(mandates.keyId);
  return { ...mandatesWire(policyId, mandates), jwks: { keys: key === undefined ? [] : [key] } };
}

/**
 * approvalView is the approval as the book holds it; one the book has forgotten (30 days after
 * its decision) is shown from what the ledger kept: its id and the request's hash, status
 * `approved` (the window was signed under it), decided_at unknown.
 */
function approvalView(sources: EvidenceSources, facts: DecisionRecord): EvidenceApproval | null {
  if (facts.approvalId === null) return null;
  const approval = sources.approval(facts.approvalId);
  if (approval === undefined) return { approval_id: facts.approvalId, status: 'approved', decided_at: null, request_sha256: facts.requestSha256 };
  return {
    approval_id: approval.id,
    status: approval.status,
    decided_at: approval.decidedAtSeconds === null ? null : isoSeconds(approval.decidedAtSeconds),
    ...(approval.reason !== null && { reason: approval.reason }),
    request_sha256: approval.requestSha256,
  };
}

/** registrationOf reads the cloud's answer to the registration from its audit line, if written. */
function registrationOf(audit: AuditExcerpt, policyId: string): EvidenceCloud['registration'] {
  for (const line of audit.lines) {
    const record = JSON.parse(line) as Record<string, unknown>;
    if (record['operation'] !== 'authorization_outcome' || record['policy_id'] !== policyId) continue;
    return { outcome: String(record['outcome']), code: typeof record['code'] === 'string' ? record['code'] : null, recorded_at: String(record['time']) };
  }
  return null;
}

/** cloudFacts asks the cloud for the authorization now and the transactions charged under it. */
async function cloudFacts(device: ReadingDevice, facts: DecisionRecord, context: OperationContext, nowSeconds: () => number): Promise<Omit<EvidenceCloud, 'registration'>> {
  const policyId = facts.window.policy_id;
  const call = cloudCall(device, context);
  let authorization: Authorization | null = null;
  try {
    authorization = await device.cloud.getAuthorization(policyId, call);
  } catch (error) {
    if (!(error instanceof LatchError && error.code === 'authorization_not_found')) throw error;
  }
  const transactions: EvidenceTransaction[] = [];
  let startingAfter: string | undefined;
  let complete = false;
  for (let page = 0; page < EVIDENCE_TRANSACTION_PAGES_MAX; page++) {
    const answer = await device.cloud.listTransactions({ limit: 100, startingAfter, cardId: facts.request.cardId, status: undefined }, call);
    for (const transaction of answer.transactions) if (transaction.policyId === policyId) transactions.push(transactionView(transaction));
    const last = answer.transactions[answer.transactions.length - 1];
    if (!answer.hasMore || last === undefined || last.createdAt < facts.window.not_before - CLOCK_SLACK_SECONDS) {
      complete = true;
      break;
    }
    startingAfter = last.id;
  }
  return {
    authorization: authorization === null ? null : authorizationView(authorization),
    status: authorization?.status ?? null,
    transactions,
    transactions_complete: complete,
    fetched_at: isoSeconds(nowSeconds()),
  };
}

function transactionView(transaction: Transaction): EvidenceTransaction {
  return {
    id: transaction.id,
    card_id: transaction.cardId,
    amount: formatMinor(transaction.amountMinor, currencyDecimals(transaction.currency) ?? 2),
    currency: transaction.currency,
    merchant: transaction.merchant,
    status: transaction.status,
    created_at: isoSeconds(transaction.createdAt),
    decline_code: transaction.declineCode,
  };
}

function authorizationView(authorization: Authorization): Record<string, unknown> {
  return {
    policy_id: authorization.policyId,
    card_id: authorization.cardId,
    merchant_name: authorization.merchant,
    amount: formatMinor(authorization.amountMinor, currencyDecimals(authorization.currency) ?? 2),
    currency: authorization.currency,
    authorization_type: authorization.authorizationType,
    kind: authorization.kind,
    not_before: isoSeconds(authorization.notBefore),
    expires_at: isoSeconds(authorization.expiresAt),
    status: authorization.status,
    created_at: isoSeconds(authorization.createdAt),
    transaction_id: authorization.transactionId,
    recurring:
      authorization.recurring === null
        ? null
        : { interval: authorization.recurring.interval, interval_count: authorization.recurring.intervalCount, max_charges: authorization.recurring.maxCharges },
  };
}

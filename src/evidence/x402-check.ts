/**
 * Checking an x402 payment's evidence pack offline (shared/spec/x402.md §3): the receipt is the
 * device key's, with the receipt's own typ, over this authorization and these requirements; the
 * requirements hash to what the receipt names; the request hashes to its sha256; what the agent
 * reported settled is at most the maximum; the audit lines are this authorization's, in chain
 * order, with its x402_authorized line. Not the chain: the settlement is the agent's word.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { canonicalJson } from '../core/approval.js';
import { checkAuditExcerpt } from './audit-excerpt-check.js';
import { JWS_TYP } from '../crypto/signature-purposes.js';
import { ATOMIC_AMOUNT } from '../x402/counting.js';
import { verifyByPackKey, type PackKey } from './pack-jws.js';
import { HEX64, type Json, isObject } from './pack-json.js';

/** The members of an x402 payment's pack, in the order they are written (evidence/x402-pack.ts). */
export const X402_PACK_MEMBERS = ['v', 'type', 'policy_id', 'jwks', 'x402', 'request', 'decision', 'approval', 'audit', 'exported_at', 'jws'] as const;


/** checkX402 returns the first problem of an x402 pack's own members, or undefined. */
export function checkX402(pack: Json, key: PackKey): string | undefined {
  const x402 = pack['x402'];
  if (!isObject(x402) || !isObject(x402['requirements'])) return 'x402 is not {receipt, requirements, ...}';
  const receipt = verifyByPackKey(x402['receipt'], key, JWS_TYP.x402Receipt, 'the x402 receipt');
  if (typeof receipt === 'string') return receipt;
  let terms: unknown;
  try {
    terms = JSON.parse(receipt.payloadText);
  } catch {
    return "the x402 receipt's payload is not JSON";
  }
  if (!isObject(terms) || terms['authorization_id'] !== pack['policy_id']) return 'the x402 receipt is not about this authorization';
  const requirements = x402['requirements'];
  const requirementsSha = canonicalSha256(requirements);
  if (x402['requirements_sha256'] !== requirementsSha || terms['requirements_sha256'] !== requirementsSha) return 'the requirements are not the ones the receipt names';
  if (terms['amount_max'] !== requirements['amount'] || terms['pay_to'] !== requirements['payTo'] || terms['network'] !== requirements['network'] || terms['asset'] !== requirements['asset']) {
    return "the receipt's terms are not the requirements'";
  }
  if (x402['payload_sha256'] !== null && !(typeof x402['payload_sha256'] === 'string' && HEX64.test(x402['payload_sha256']))) return 'x402.payload_sha256 is not a SHA-256';

  const request = pack['request'];
  if (!isObject(request)) return 'request is not an object';
  const { agent: _agent, received_at: _received, sha256: requestSha, ...value } = request;
  if (typeof requestSha !== 'string' || canonicalSha256(value) !== requestSha) return "request.sha256 is not the SHA-256 of the request's terms";
  if (!isObject(value['x402']) || canonicalJson((value['x402'] as Json)['requirements']) !== canonicalJson(requirements)) return "the request's requirements are not the pack's";

  const settlement = x402['settlement'];
  if (settlement !== null) {
    if (!isObject(settlement) || settlement['reported_by'] !== 'agent') return 'x402.settlement is not a report by the agent';
    const response = settlement['settle_response'];
    if (isObject(response) && response['amount'] !== undefined) {
      const amount = response['amount'];
      if (typeof amount !== 'string' || !ATOMIC_AMOUNT.test(amount) || typeof requirements['amount'] !== 'string' || !ATOMIC_AMOUNT.test(requirements['amount'])) return 'the settled amount is not an atomic amount';
      if (BigInt(amount) > BigInt(requirements['amount'])) return 'the settled amount is above the maximum the receipt names';
    }
  }
  const approval = pack['approval'];
  return checkX402Audit(pack['audit'], String(pack['policy_id']), key.kid, requestSha, isObject(approval) && typeof approval['approval_id'] === 'string' ? approval['approval_id'] : null);
}

/** checkX402Audit checks the audit excerpt (evidence/audit-excerpt-check.ts) with its x402_authorized line required. */
function checkX402Audit(audit: unknown, policyId: string, keyId: string, requestSha: string, approvalId: string | null): string | undefined {
  return checkAuditExcerpt(audit, {
    policyId,
    approvalId,
    requestSha,
    isRequiredLine: (record) => record['operation'] === 'x402_authorized' && record['policy_id'] === policyId && record['key_id'] === keyId && record['request_sha256'] === requestSha,
    missing: 'no audit line records the x402 authorization with these terms',
  });
}

/** canonicalSha256 is the hex SHA-256 of a value's canonical JSON, as the daemon hashes requests and requirements. */
function canonicalSha256(value: unknown): string {
  return bytesToHex(sha256(new TextEncoder().encode(canonicalJson(value))));
}

/**
 * Checking an evidence pack offline (shared/spec/evidence.md §3; docs/decisions.md §22): no
 * daemon, no cloud, no data directory — only the pack's own bytes and its own key. The checks run
 * in a fixed order and the first that fails is named, so two verifiers report the same problem.
 */
import { JWS_TYP } from '../crypto/signature-purposes.js';
import { requestSha256 } from '../core/approval.js';
import { jwkThumbprint, type Ed25519PublicJwk } from '../crypto/jwk.js';
import { publicKeyFromJwk } from '../verify/public-jwk.js';
import { currencyDecimals, parseAmountText } from '../money/amount.js';
import { checkAuditExcerpt } from './audit-excerpt-check.js';
import { APPROVAL_ID_PATTERN, POLICY_ID_PATTERN, X402_ID_PATTERN } from '../ids/wire-ids.js';
import { checkX402, X402_PACK_MEMBERS } from './x402-check.js';
import { parseIsoSeconds } from '../time/iso-time.js';
import { AP2_PACK_MEMBERS, EVIDENCE_BYTES_MAX, EVIDENCE_JWS_TYP, EVIDENCE_TYPE, PACK_MEMBERS } from './pack.js';
import { checkAp2 } from './ap2-check.js';
import { verifyByPackKey, type PackKey } from './pack-jws.js';
import { requestValue } from './request-view.js';
import { checkWindowTerms } from './window-terms.js';
import { HEX64, type Json, isObject } from './pack-json.js';

/**
 * What verifyEvidence found: everything holds, or the first thing that does not. `keyPinned` says
 * whether the key was one the caller named (options.expectedKeyIds): without that, a pack that
 * holds is only consistent with itself, since anyone can sign a made-up pack with a key of their
 * own and carry that key in it (docs/decisions.md §27.2).
 */
export type EvidenceVerdict = { ok: true; policyId: string; keyId: string; keyPinned: boolean } | { ok: false; problem: string };

/** What verifyEvidence is told besides the pack. */
export interface VerifyEvidenceOptions {
  /**
   * The key ids (RFC 7638 thumbprints) of the device keys the pack must be signed by: `latch
   * status` shows the device's; keyIdsOfJwks reads them from a JWKS. The pack's key must be one
   * of them, else the verdict names both.
   */
  expectedKeyIds?: readonly string[];
}

const APPROVAL_STATUSES: ReadonlySet<string> = new Set(['approved', 'failed']);
/** How far the device's idea of the cloud's clock (a window's `iat`) may be off: the cloud's own bound. */
const CLOCK_SKEW_SECONDS = 300;

/**
 * verifyEvidence checks a pack: its exact text (a string or the file's bytes), or the parsed
 * object (then re-serialised, so member order still matters). It never throws on bad input.
 */
export function verifyEvidence(pack: string | Uint8Array | object, options: VerifyEvidenceOptions = {}): EvidenceVerdict {
  try {
    const problem = check(pack, options.expectedKeyIds);
    return typeof problem === 'string' ? { ok: false, problem } : { ok: true, ...problem, keyPinned: options.expectedKeyIds !== undefined };
  } catch {
    return { ok: false, problem: 'the pack could not be read' };
  }
}

/**
 * keyIdsOfJwks returns the key id of every Ed25519 public key in a JWKS (`{"keys": [...]}`, as a
 * parsed object or its text), computed from the key itself rather than taken from its `kid`; or a
 * sentence saying why it is not such a JWKS.
 */
export function keyIdsOfJwks(jwks: unknown): string[] | string {
  let value = jwks;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch {
      return 'the JWKS is not JSON';
    }
  }
  if (!isObject(value) || !Array.isArray(value['keys']) || value['keys'].length === 0) return 'the JWKS is not {"keys": [...]} with at least one key';
  const ids: string[] = [];
  for (const jwk of value['keys'] as unknown[]) {
    if (publicKeyFromJwk(jwk) === undefined || !isObject(jwk)) return "a key of the JWKS is not an Ed25519 public key";
    ids.push(jwkThumbprint({ kty: 'OKP', crv: 'Ed25519', x: jwk['x'] } as Ed25519PublicJwk));
  }
  return ids;
}

function check(input: string | Uint8Array | object, expectedKeyIds: readonly string[] | undefined): string | { policyId: string; keyId: string } {
  const text = packText(input);
  if (text === undefined) return 'the pack is not UTF-8 text of at most 4 MiB';
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return 'the pack is not JSON';
  }
  if (!isObject(parsed)) return 'the pack is not a JSON object';
  // One exact text per pack: re-serialising gives the same bytes, so no byte (spacing, escapes,
  // a duplicate member, the final newline) can change while the signed content stays the same.
  const exact = JSON.stringify(parsed);
  if (text !== exact && text !== `${exact}\n`) return 'the pack is not in its exact form (one line of JSON, as exported)';
  const pack = parsed;
  const members = Object.keys(pack);
  // An AP2 mandate's pack has one member more, ap2 (docs/ap2.md); its request says it is one.
  const kind = isObject(pack['request']) ? pack['request']['kind'] : undefined;
  // An x402 payment's pack has an x402 member instead of window and cloud (docs/x402.md).
  const expected: readonly string[] = kind === 'ap2_mandate' ? AP2_PACK_MEMBERS : kind === 'x402' ? X402_PACK_MEMBERS : PACK_MEMBERS;
  if (members.length !== expected.length || members.some((name, index) => name !== expected[index])) return `the pack's members are not exactly ${expected.join(', ')}, in that order`;
  if (pack['v'] !== 1 || pack['type'] !== EVIDENCE_TYPE) return `the pack is not a v1 ${EVIDENCE_TYPE}`;
  const policyId = pack['policy_id'];
  if (typeof policyId !== 'string' || !(kind === 'x402' ? X402_ID_PATTERN : POLICY_ID_PATTERN).test(policyId)) return 'policy_id is not an authorization id';

  const key = packKey(pack['jwks']);
  if (typeof key === 'string') return key;
  // First after the key is read: a pack signed by another key is not this device's, however
  // consistent it is with itself.
  if (expectedKeyIds !== undefined && !expectedKeyIds.includes(key.kid)) return `the pack is signed by key ${key.kid}, not by the expected device key (${expectedKeyIds.join(', ') || 'none named'})`;

  const signed = verifyByPackKey(pack['jws'], key, EVIDENCE_JWS_TYP, "the pack's jws");
  if (typeof signed === 'string') return signed;
  const { jws: _signature, ...body } = pack;
  if (signed.payloadText !== JSON.stringify(body)) return "the pack's jws payload is not the pack's members";
  if (kind === 'x402') return checkX402Pack(pack, key, policyId);

  const window = pack['window'];
  if (!isObject(window) || !isObject(window['payload'])) return 'window is not {jws, payload}';
  const windowSigned = verifyByPackKey(window['jws'], key, JWS_TYP.window, "the window's jws");
  if (typeof windowSigned === 'string') return windowSigned;
  if (windowSigned.payloadText !== JSON.stringify(window['payload'])) return "window.payload is not the window jws's payload";
  const payload = window['payload'];
  if (payload['policy_id'] !== policyId) return "the window's policy_id is not the pack's";

  const request = pack['request'];
  if (!isObject(request)) return 'request is not an object';
  const value = requestValue(request);
  if (typeof value === 'string') return value;
  if (typeof request['sha256'] !== 'string' || requestSha256(value) !== request['sha256']) return "request.sha256 is not the SHA-256 of the request's terms";
  if (typeof request['agent'] !== 'string' || parseIsoSeconds(String(request['received_at'])) === undefined) return 'request.agent or request.received_at is missing';
  const terms = checkWindowTerms(payload, value);
  if (terms !== undefined) return terms;

  const decided = checkDecided(pack, request['sha256']);
  if (decided !== undefined) return decided;
  const audit = checkAudit(pack['audit'], { policyId, approvalId: isObject(pack['approval']) ? (pack['approval']['approval_id'] as string) : null, requestSha: request['sha256'], keyId: key.kid, payload });
  if (audit !== undefined) return audit;
  const cloud = checkCloud(pack['cloud'], payload, policyId);
  if (cloud !== undefined) return cloud;
  if (value.kind === 'ap2_mandate') {
    const mandates = checkAp2(pack['ap2'], value, payload, (pack['audit'] as Json)['lines'] as string[]);
    if (mandates !== undefined) return mandates;
  }
  return checkExportedAt(pack) ?? { policyId, keyId: key.kid };
}

/** checkX402Pack checks what an x402 pack has besides the members every pack shares (evidence/x402-check.ts). */
function checkX402Pack(pack: Json, key: PackKey, policyId: string): string | { policyId: string; keyId: string } {
  return checkX402(pack, key) ?? checkDecided(pack, (pack['request'] as Json)['sha256']) ?? checkExportedAt(pack) ?? { policyId, keyId: key.kid };
}

/** checkDecided checks what every pack says of the decision and, when the owner was asked, of the approval. */
function checkDecided(pack: Json, requestSha: unknown): string | undefined {
  return checkDecision(pack['decision'], pack['approval']) ?? checkApproval(pack['approval'], requestSha);
}

function checkExportedAt(pack: Json): string | undefined {
  return typeof pack['exported_at'] === 'string' && parseIsoSeconds(pack['exported_at']) !== undefined ? undefined : 'exported_at is not an ISO time';
}

function packText(input: string | Uint8Array | object): string | undefined {
  if (typeof input === 'string') return input.length <= EVIDENCE_BYTES_MAX ? input : undefined;
  if (input instanceof Uint8Array) {
    if (input.byteLength > EVIDENCE_BYTES_MAX) return undefined;
    try {
      return new TextDecoder('utf-8', { fatal: true }).decode(input);
    } catch {
      return undefined;
    }
  }
  return JSON.stringify(input);
}

/** packKey reads the JWKS: exactly one Ed25519 public key whose kid is its RFC 7638 thumbprint. */
function packKey(jwks: unknown): PackKey | string {
  if (!isObject(jwks) || !Array.isArray(jwks['keys']) || jwks['keys'].length !== 1) return 'jwks does not hold exactly one key';
  const jwk = jwks['keys'][0] as unknown;
  const publicKey = publicKeyFromJwk(jwk);
  if (publicKey === undefined || !isObject(jwk)) return "jwks' key is not an Ed25519 public key";
  const kid = jwkThumbprint({ kty: 'OKP', crv: 'Ed25519', x: jwk['x'] } as Ed25519PublicJwk);
  if (jwk['kid'] !== kid) return "jwks' key id is not the key's RFC 7638 thumbprint";
  return { publicKey, kid };
}

function checkDecision(decision: unknown, approval: unknown): string | undefined {
  if (!isObject(decision)) return 'decision is not an object';
  if (decision['decision'] !== 'allow' && decision['decision'] !== 'ask') return 'decision.decision is neither allow nor ask';
  if (!Array.isArray(decision['reasons']) || !decision['reasons'].every((reason) => typeof reason === 'string')) return 'decision.reasons is not a list of sentences';
  if (decision['rule'] !== null && typeof decision['rule'] !== 'string') return 'decision.rule is neither text nor null';
  if (decision['sha256'] !== null && !(typeof decision['sha256'] === 'string' && HEX64.test(decision['sha256']))) return "decision.sha256 is not the policy's SHA-256";
  if (decision['decision'] === 'ask' && approval === null) return 'the policy asked the owner, but the pack has no approval';
  return undefined;
}

function checkApproval(approval: unknown, requestSha: unknown): string | undefined {
  if (approval === null) return undefined;
  if (!isObject(approval)) return 'approval is neither null nor an object';
  if (typeof approval['approval_id'] !== 'string' || !APPROVAL_ID_PATTERN.test(approval['approval_id'])) return 'approval.approval_id is not an approval id';
  if (!APPROVAL_STATUSES.has(String(approval['status']))) return 'approval.status is not approved (nor failed at the cloud)';
  if (approval['decided_at'] !== null && parseIsoSeconds(String(approval['decided_at'])) === undefined) return 'approval.decided_at is not an ISO time';
  if (approval['request_sha256'] !== requestSha) return "approval.request_sha256 is not the request's sha256";
  return undefined;
}

interface AuditContext {
  policyId: string;
  approvalId: string | null;
  requestSha: unknown;
  keyId: string;
  payload: Json;
}

/** checkAudit checks the audit excerpt (evidence/audit-excerpt-check.ts) with the window's own line required. */
function checkAudit(audit: unknown, context: AuditContext): string | undefined {
  return checkAuditExcerpt(audit, {
    policyId: context.policyId,
    approvalId: context.approvalId,
    requestSha: context.requestSha,
    isRequiredLine: (record) => isWindowLine(record, context),
    missing: "no audit line records the window's signature with these terms",
  });
}

/** isWindowLine reports whether a line records the window's signature: its id, key, terms and request. */
function isWindowLine(record: Json, context: AuditContext): boolean {
  const { payload } = context;
  return (
    record['policy_id'] === context.policyId &&
    record['key_id'] === context.keyId &&
    record['request_sha256'] === context.requestSha &&
    record['merchant'] === payload['merchant'] &&
    record['currency'] === payload['currency'] &&
    record['card_id'] === (payload['card_id'] ?? null) &&
    minor(record['amount'], payload['currency']) === minor(payload['amount'], payload['currency'])
  );
}

/**
 * checkCloud checks what the cloud reported: its authorization (when it holds one) is this window,
 * and no charge it approved under the window exceeds it — card, merchant, currency, amount, time.
 */
function checkCloud(cloud: unknown, payload: Json, policyId: string): string | undefined {
  if (!isObject(cloud) || !Array.isArray(cloud['transactions'])) return 'cloud is not {registration, authorization, status, transactions}';
  const authorization = cloud['authorization'];
  if (authorization !== null) {
    if (!isObject(authorization) || authorization['policy_id'] !== policyId) return "cloud.authorization is not this authorization";
    if (minor(authorization['amount'], payload['currency']) !== minor(payload['amount'], payload['currency']) || authorization['merchant_name'] !== payload['merchant']) return "cloud.authorization's terms are not the window's";
    if (cloud['status'] !== authorization['status']) return "cloud.status is not the cloud authorization's status";
  }
  const windowMinor = minor(payload['amount'], payload['currency']);
  let charges = 0;
  for (const [index, transaction] of (cloud['transactions'] as unknown[]).entries()) {
    const where = `cloud transaction ${index + 1}`;
    if (!isObject(transaction) || typeof transaction['id'] !== 'string' || typeof transaction['status'] !== 'string') return `${where} is not a transaction`;
    // A declined charge was refused by the cloud: it is evidence of an attempt, not of spending.
    if (transaction['status'] === 'declined') continue;
    charges += 1;
    const amount = minor(transaction['amount'], transaction['currency']);
    const at = parseIsoSeconds(String(transaction['created_at']));
    if (amount === undefined || windowMinor === undefined || amount > windowMinor) return `${where} exceeds the window's amount`;
    if (payload['authorization_type'] === 'exact' && amount !== windowMinor) return `${where} is not the window's exact amount`;
    if (transaction['currency'] !== payload['currency'] || transaction['merchant'] !== payload['merchant']) return `${where} is at another merchant or in another currency than the window`;
    if (payload['card_id'] !== undefined && transaction['card_id'] !== payload['card_id']) return `${where} is on another card than the window`;
    // The cloud dates the window's own transaction (the hold) at registration, which may precede
    // a recurring window's start; no transaction can predate the window's signature or follow its end.
    if (at === undefined || at < (payload['iat'] as number) - CLOCK_SKEW_SECONDS || at > (payload['not_after'] as number)) return `${where} is outside the window's time`;
  }
  const chargesMax = payload['kind'] === 'recurring' ? ((payload['max_charges'] as number | undefined) ?? Number.POSITIVE_INFINITY) : 1;
  if (charges > chargesMax) return 'the cloud reports more charges than the window allows';
  return undefined;
}

function minor(amount: unknown, currency: unknown): number | undefined {
  if (typeof amount !== 'string' || typeof currency !== 'string') return undefined;
  try {
    return parseAmountText(amount, { param: 'amount', allowZero: true, decimals: currencyDecimals(currency) ?? 2 });
  } catch {
    return undefined;
  }
}

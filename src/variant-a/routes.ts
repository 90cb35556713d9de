/**
 * The route table of the canonical listener (127.0.0.1:7723, docs/decisions.md §2): every route of
 * Variant A, with its method, pattern, who may call it, and its handler. GET /health, POST
 * /owner/sessions, the key directory GET /web-bot-auth/directory (docs/decisions.md §23.5) and the AP2
 * mandate keys GET /ap2/jwks (docs/ap2.md) are public; the owner's routes are those docs/decisions.md §15.1 and §21 name,
 * 'owner_present' where the route could move money or widen what agents may do (approving,
 * resuming, PUT /policy, agents, the signing primitives, wallet allocation, proxy writes) and
 * 'owner' where it can only stop money or read; every other route admits the owner and agents.
 * Kept sorted by pattern, then method (a test checks it).
 */
import type { ApprovalOperations } from '../operations/approval-operations.js';
import type { AuthorizationListOperations } from '../operations/authorization-list.js';
import type { CoreOperations } from '../operations/operations.js';
import { toBase64Url } from '../crypto/base64url.js';
import type { RequestContext, Route } from '../http/route.js';
import { validateBody, validateQuery } from '../validate/schema.js';
import { signingProxyRoutes, type ProxyUpstream } from '../proxy/signing-proxy.js';
import { readHandlers } from '../variant-common/read-routes.js';
import { allocateHandler } from '../variant-common/wallet-allocation.js';
import type { IdentityOperations } from '../identity/identity-operations.js';
import { approvalHandlers } from './approval-routes.js';
import { auditHandlers, type AuditOperations } from './audit-routes.js';
import { ap2Handlers, type Ap2Operations } from './ap2-routes.js';
import { x402Handlers, type X402Operations } from './x402-routes.js';
import { identityHandlers } from './identity-routes.js';
import { authorizationHandlers } from './authorization-routes.js';
import { evidenceHandler, type EvidenceOperations } from './evidence-routes.js';
import { signingHandlers } from './handlers.js';
import { ownerHandlers, type OwnerOperations } from './owner-routes.js';
import { policyHandlers, type PolicyOperations } from './policy-routes.js';
import { POLICY_FILE_BYTES_MAX } from '../policy/policy-file.js';
import { allocationA, cardDetailA, cardSummaryA, transactionA, walletA } from './shapes.js';

/** What A's /health reports, from local state only (docs/decisions.md §7 rule 1). */
export interface HealthFacts {
  version: string;
  uptimeSeconds: number;
  /** The loaded device key's public material, or null before enrollment. */
  signingKey: { keyId: string; publicKey: Uint8Array } | null;
  /** The owner's emergency brake (`latch pause`), when pulled. */
  paused: { since: string; reason: string | null } | null;
  /** How far the cloud's clock runs ahead of this device's, as last seen; null before any answer. */
  cloudClockSkewSeconds: number | null;
  /** The configured presence factors: `none`, `passphrase`, ... (docs/decisions.md §21). */
  ownerPresence: string;
  /** How long approving stays locked after wrong passphrases (0 when it is not), for latch doctor (docs/decisions.md §19). */
  approvalsLockedSeconds: number;
}

/** What Variant A's routes call. */
export interface VariantADeps {
  operations: CoreOperations;
  /** The authorizations this device signed, with who asked for each (docs/decisions.md §15.2). */
  authorizations: AuthorizationListOperations;
  /** Pending approvals and the owner's decisions (docs/decisions.md §15.4). */
  approvals: ApprovalOperations;
  /** One authorization's evidence pack (docs/decisions.md §22). */
  evidence: EvidenceOperations;
  health: () => HealthFacts;
  /** The spending policy: GET /policy and POST /policy/check (docs/decisions.md §15.3). */
  policy: PolicyOperations;
  /** The cloud client and device key for one proxied request, resolved together. */
  proxyUpstream: () => ProxyUpstream;
  /** Owner sessions, the brake, the policy and agents through the API (docs/decisions.md §21). */
  owner: OwnerOperations;
  /** A one-time login link to the owner console (POST /console/login-code; docs/decisions.md §25). */
  consoleLoginLink: () => { url: string; expires_at: string };
  /** Agent identity: Web Bot Auth signatures and the key directory (docs/decisions.md §23). */
  identity: IdentityOperations;
  /** audit.log for the owner who cannot read it (the separate-user setup, docs/decisions.md §30). */
  audit: AuditOperations;
  /** AP2 mandates: the trusted surface's keys and open mandates (docs/ap2.md). */
  ap2: Ap2Operations;
  /** The x402 guard: the assets that count, x402 payments and what happens to them (docs/x402.md). */
  x402: X402Operations;
}

/** variantARoutes is Variant A's route table. */
export function variantARoutes(deps: VariantADeps): Route[] {
  const { operations } = deps;
  const signing = signingHandlers(operations);
  const signed = authorizationHandlers(deps.authorizations);
  const policy = policyHandlers(deps.policy);
  const approvals = approvalHandlers(deps.approvals);
  const owner = ownerHandlers(deps.owner);
  const identity = identityHandlers(deps.identity);
  const audit = auditHandlers(deps.audit);
  const ap2 = ap2Handlers(deps.ap2);
  const x402 = x402Handlers(deps.x402);
  const reads = readHandlers(operations, {
    cardList: (cards) => ({ cards: cards.map(cardSummaryA) }),
    cardDetail: cardDetailA,
    transactionList: (page) => ({ transactions: page.transactions.map(transactionA), has_more: page.hasMore }),
    transactionDetail: transactionA,
    wallet: walletA,
  });
  return [
    { method: 'GET', pattern: '/agents', access: 'owner', handler: owner.listAgents },
    { method: 'POST', pattern: '/agents', access: 'owner_present', handler: owner.addAgent },
    { method: 'DELETE', pattern: '/agents/:name', access: 'owner_present', handler: owner.removeAgent },
    { method: 'POST', pattern: '/agents/:name/rotate', access: 'owner_present', handler: owner.rotateAgent },
    { method: 'GET', pattern: '/ap2/jwks', access: 'public', handler: ap2.jwks },
    { method: 'POST', pattern: '/ap2/mandates', access: 'agents', handler: ap2.mandates },
    { method: 'GET', pattern: '/ap2/mandates/:mandate_id/context', access: 'agents', handler: ap2.context },
    { method: 'GET', pattern: '/approvals', access: 'agents', handler: approvals.list },
    { method: 'GET', pattern: '/approvals/:approval_id', access: 'agents', handler: approvals.get },
    { method: 'POST', pattern: '/approvals/:approval_id/approve', access: 'owner_present', handler: approvals.approve },
    { method: 'POST', pattern: '/approvals/:approval_id/deny', access: 'owner', handler: approvals.deny },
    { method: 'GET', pattern: '/audit', access: 'owner', handler: audit.list },
    { method: 'GET', pattern: '/audit/verify', access: 'owner', handler: audit.verify },
    { method: 'GET', pattern: '/authorizations', access: 'agents', handler: signed.list },
    { method: 'GET', pattern: '/authorizations/:policy_id', access: 'agents', handler: signed.get },
    { method: 'POST', pattern: '/authorizations/:policy_id/cancel', access: 'agents', handler: signed.cancel },
    { method: 'GET', pattern: '/authorizations/:policy_id/evidence', access: 'agents', handler: evidenceHandler(deps.evidence) },
    { method: 'POST', pattern: '/authorize', access: 'agents', handler: signing.authorize },
    { method: 'GET', pattern: '/cards', access: 'agents', handler: reads.listCards },
    { method: 'GET', pattern: '/cards/:card_id', access: 'agents', handler: reads.getCard },
    { method: 'POST', pattern: '/console/login-code', access: 'owner', handler: (request) => consoleLoginCode(request, deps.consoleLoginLink) },
    { method: 'GET', pattern: '/health', access: 'public', handler: () => healthAnswer(deps.health()) },
    { method: 'POST', pattern: '/merchant-bind', access: 'agents', handler: signing.merchantBind },
    { method: 'POST', pattern: '/owner/sessions', access: 'public', handler: owner.openSession },
    { method: 'DELETE', pattern: '/owner/sessions/current', access: 'owner', handler: owner.endSession },
    { method: 'POST', pattern: '/pause', access: 'owner', handler: owner.pause },
    { method: 'GET', pattern: '/policy', access: 'owner', handler: policy.show },
    { method: 'PUT', pattern: '/policy', access: 'owner_present', bodyBytesMax: POLICY_FILE_BYTES_MAX, handler: owner.putPolicy },
    { method: 'POST', pattern: '/policy/check', access: 'agents', handler: policy.check },
    { method: 'POST', pattern: '/recurring', access: 'agents', handler: signing.recurring },
    { method: 'POST', pattern: '/resume', access: 'owner_present', handler: owner.resume },
    { method: 'POST', pattern: '/sign-card-policy-window', access: 'owner_present', handler: signing.signCardPolicyWindow },
    { method: 'POST', pattern: '/sign-policy-window', access: 'owner_present', handler: signing.signPolicyWindow },
    { method: 'POST', pattern: '/sign-revocation', access: 'owner', handler: signing.signRevocation },
    { method: 'GET', pattern: '/transactions', access: 'agents', handler: reads.listTransactions },
    { method: 'GET', pattern: '/transactions/:tx_id', access: 'agents', handler: reads.getTransaction },
    ...signingProxyRoutes(deps.proxyUpstream),
    { method: 'POST', pattern: '/wallet/allocate', access: 'owner_present', handler: allocateHandler(operations, allocationA) },
    { method: 'GET', pattern: '/wallet/balance', access: 'agents', handler: reads.walletBalance },
    { method: 'GET', pattern: '/web-bot-auth/directory', access: 'public', handler: identity.directory },
    { method: 'GET', pattern: '/web-bot-auth/keys/:name', access: 'owner', handler: identity.key },
    { method: 'POST', pattern: '/web-bot-auth/sign', access: 'agents', handler: identity.sign },
    { method: 'GET', pattern: '/x402/assets', access: 'agents', handler: x402.assets },
    { method: 'POST', pattern: '/x402/authorizations/:authorization_id/payload', access: 'agents', handler: x402.payload },
    { method: 'POST', pattern: '/x402/authorizations/:authorization_id/release', access: 'agents', handler: x402.release },
    { method: 'POST', pattern: '/x402/authorizations/:authorization_id/settlement', access: 'agents', handler: x402.settlement },
    { method: 'POST', pattern: '/x402/authorize', access: 'agents', handler: x402.authorize },
  ];
}

function healthAnswer(health: HealthFacts) {
  const key = health.signingKey;
  return {
    status: 200,
    body: {
      status: 'ok',
      version: health.version,
      uptime_seconds: health.uptimeSeconds,
      signing_key: key === null ? null : { key_id: key.keyId, algorithm: 'Ed25519', public_key: toBase64Url(key.publicKey) },
      // Public: that signing is paused and since when, never the owner's note (docs/decisions.md §20).
      paused: health.paused === null ? null : { since: health.paused.since },
      cloud_clock_skew_seconds: health.cloudClockSkewSeconds,
      owner_presence: health.ownerPresence,
      approvals_locked_seconds: health.approvalsLockedSeconds,
    },
  };
}

/** POST /console/login-code makes a one-time login link to the owner console; it takes no input. */
function consoleLoginCode(request: RequestContext, link: () => { url: string; expires_at: string }) {
  validateQuery(request.query, {});
  validateBody(request.body ?? {}, {});
  return { status: 201, body: link() };
}

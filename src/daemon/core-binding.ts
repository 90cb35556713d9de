/**
 * The daemon's bound core: the CoreDeps its handlers use, composed from the audit recorder, the
 * enrolled device and its cloud, the policy gate, approvals and owner presence of one data
 * directory. Each part is in its own file; this one only puts them together.
 */
import type { CloudClock } from '../cloud/cloud-clock.js';
import type { ProxyUpstream } from '../proxy/signing-proxy.js';
import { StoredAuthorizationLedger } from '../core/authorization-ledger.js';
import type { ApprovalDeps } from '../core/approval-deps.js';
import { ApprovalBook } from '../core/approval-book.js';
import type { CoreDeps, OperationContext } from '../core/core-deps.js';
import type { X402Deps } from '../core/x402-deps.js';
import { SignedWindowCache } from '../core/signed-window-cache.js';
import { learnChargedMerchant, type ChargedMerchantDeps } from '../core/charged-merchants.js';
import type { AuditEntry } from '../datadir/audit-entry.js';
import { PolicyGate } from '../policy/policy-gate.js';
import type { OwnerPresence } from '../owner/owner-presence.js';
import { HeldWindows } from '../core/held-windows.js';
import { bindApprovals } from './approval-binding.js';
import type { AuditAnchorKeeper } from './audit-anchor-keeper.js';
import { auditRecorder, type AuditRecorder } from './audit-recorder.js';
import { outcomeEntry, signatureEntry } from './audit-records.js';
import { RefusalAuditor } from './refusal-audit.js';
import { cloudConnection, upstreamTimeoutMs, type CloudConnection } from './cloud-connection.js';
import { enrolledDevice } from './enrolled-device.js';
import { bindPresence } from './presence-binding.js';
import { mandateDeps } from './ap2-binding.js';
import { x402Deps } from './x402-binding.js';
import { expireDue } from '../core/x402-lifecycle.js';
import type { DaemonServices } from './services.js';
import type { ReadingDevice } from '../operations/cloud-reads.js';
import { createSigner, type Signer } from '../signer/index.js';

export type { ProxyUpstream } from '../proxy/signing-proxy.js';
export { UPSTREAM_TIMEOUT_ENV, upstreamTimeoutMs } from './cloud-connection.js';

/** The daemon's bound core: the CoreDeps its handlers use, and the upstream the proxy uses. */
export interface CoreBinding {
  deps: CoreDeps;
  /** Every authorization this device signed for registration, in state.journal (GET /authorizations reads it). */
  authorizationLedger: StoredAuthorizationLedger;
  /** The audit chain's anchor in state.journal: confirmed at start, moved forward by every append. */
  auditAnchor: AuditAnchorKeeper;
  /** The spending policy: the decision step of every authorization, and GET /policy, POST /policy/check. */
  policy: PolicyGate;
  /**
   * Before new_merchant would call merchant new: asks the cloud whether this device's active
   * authorizations there were used (docs/decisions.md §31.2). Never fails.
   */
  learnChargedMerchant(merchant: string, context: OperationContext): Promise<void>;
  /** The cloud's clock as learned from its answers (skew shown by /health and latch doctor). */
  cloudClock: CloudClock;
  /** Appends one line to audit.log durably (owner actions: policy_changed, agent_added, ...). */
  appendAudit(entry: AuditEntry): Promise<unknown>;
  /** The owner's presence: its factors, the one passphrase check, the owner sessions (docs/decisions.md §21). */
  presence: OwnerPresence;
  proxyUpstream(): ProxyUpstream;
  /**
   * The daemon's one signer (docs/decisions.md §34.1): its keys, and every purpose checked against
   * this daemon's authorization ledger. Built here and nowhere else.
   */
  signer: Signer;
  /** The enrolled device with the cloud's reads too (cards, transactions, the wallet), for what reads them outside the core. */
  readingDevice(): ReadingDevice;
  /** The bounded refusal lines (issue 44 item 3); stopped with the daemon, writing what it counted. */
  refusals: RefusalAuditor;
}

/**
 * bindCore gives the core operations the daemon's state: the enrolled key and device id, a cloud
 * client for the effective cloud URL (rebuilt only when that URL changes), and the audit log.
 * Every signature, of a policy window, a revocation or an upstream request, is on disk in
 * audit.log before the request it belongs to goes anywhere.
 */
export function bindCore(services: DaemonServices, passphrase: string | undefined): CoreBinding {
  // First: a malformed LATCH_UPSTREAM_TIMEOUT_MS stops the daemon before anything else is made.
  const timeoutMs = upstreamTimeoutMs(services.env);
  const nowSeconds = () => Math.floor(Date.now() / 1000);
  // The parts below register their record types with state.journal, which must happen before
  // listen() opens it; compaction writes live records in the order the types were registered.
  const ledger = new StoredAuthorizationLedger(services.stateStore);
  const signer = createSigner({ home: services.home, passphrase, watch: services.watchedFile, keyIdNamed: (fresh) => services.config(fresh).key_id, ledger });
  const policy = new PolicyGate({
    policy: services.policy,
    authorizations: ledger,
    store: services.stateStore,
    nowSeconds,
    log: (event, fields) => services.logger.info(event, fields),
  });
  const audit = auditRecorder(services);
  const cloud = cloudConnection(services, { timeoutMs, ledger, audit });
  // The book registers its record type before the lockout's, as it always has (compaction order).
  const book = new ApprovalBook(services.stateStore);
  const presence = bindPresence(services, nowSeconds);
  const approvals = bindApprovals(services, book, presence, audit.append);
  const heldWindows = new HeldWindows(services.stateStore);
  const refusals = new RefusalAuditor(audit.append, (event, fields) => services.logger.warn(event, fields));
  // The x402 index follows the ledger, so it is made before the store is opened and replayed.
  const x402 = x402Deps(policy, ledger, audit.append);
  const coreParts: CoreParts = { audit, cloud, ledger, policy, approvals, heldWindows, nowSeconds, refusals, signer, x402 };
  const deps = coreDeps(services, coreParts);
  return {
    deps,
    signer,
    authorizationLedger: ledger,
    auditAnchor: audit.anchor,
    policy,
    learnChargedMerchant: (merchant, context) => learnMerchant(services, coreParts, merchant, context),
    presence,
    appendAudit: audit.append,
    get cloudClock() {
      return cloud.clock();
    },
    readingDevice: () => enrolledDevice(services, signer, cloud),
    refusals,
    proxyUpstream: () => {
      const { client, key } = enrolledDevice(services, signer, cloud);
      return { client, key, paused: services.paused, heldWindows, ledger, nowSeconds, warn: (event, fields) => services.logger.warn(event, fields) };
    },
  };
}

/** The parts of one daemon that coreDeps hands to the core operations. */
interface CoreParts {
  audit: AuditRecorder;
  cloud: CloudConnection;
  ledger: StoredAuthorizationLedger;
  policy: PolicyGate;
  approvals: ApprovalDeps;
  heldWindows: HeldWindows;
  nowSeconds: () => number;
  refusals: RefusalAuditor;
  signer: Signer;
  x402: X402Deps;
}

/** learnMerchant asks the cloud about a merchant's authorizations only when the policy would call it new. */
async function learnMerchant(services: DaemonServices, parts: CoreParts, merchant: string, context: OperationContext): Promise<void> {
  if (parts.policy.merchantIsNew(merchant)) await learnChargedMerchant(chargedMerchantDeps(services, parts), merchant, context);
}

/** chargedMerchantDeps lets the core ask the cloud about a merchant's authorizations and mark it known. */
function chargedMerchantDeps(services: DaemonServices, parts: CoreParts): ChargedMerchantDeps {
  return {
    device: () => {
      const { key, deviceId, cloud: gateway } = enrolledDevice(services, parts.signer, parts.cloud);
      return { key, deviceId, cloud: gateway };
    },
    ledger: parts.ledger,
    markKnown: (merchant) => parts.policy.markMerchantKnown(merchant),
  };
}

/** coreDeps is what the core operations call: every safety step is here, none optional (docs/decisions.md §18.3). */
function coreDeps(services: DaemonServices, parts: CoreParts): CoreDeps {
  const { audit, cloud, signer } = parts;
  const deps: CoreDeps = {
    signer,
    device: () => {
      const { key, deviceId, cloud: gateway } = enrolledDevice(services, signer, cloud);
      return { key, deviceId, cloud: gateway };
    },
    audit: async (signature) => {
      await audit.append(signatureEntry(signature));
    },
    // The outcome line joins the next commit (deferred, docs/decisions.md §41); the answer does
    // not wait for it, and a failure to write it is logged (the signature itself was audited
    // before it left).
    outcome: (record) => {
      audit.appendLater(outcomeEntry(record)).catch(() => services.logger.warn('audit_outcome_not_recorded', { policy_id: record.policyId }));
    },
    // What the policy, the pause or the lockout refused: bounded lines (issue 44 item 3).
    refused: (record) => parts.refusals.note(record),
    nowSeconds: parts.nowSeconds,
    cloudNowSeconds: () => cloud.clock().nowSeconds(),
    paused: services.paused,
    signedWindows: SignedWindowCache.durable(services.stateStore),
    authorizations: parts.ledger,
    // Before new_merchant calls a merchant new, the cloud is asked whether this device's
    // authorizations there were charged meanwhile (docs/decisions.md §31.2).
    // An AP2 mandate makes no signed cloud call before its decision (shared/spec/ap2-mandates.md
    // §6): new_merchant then judges it on what the device knows, which can only ask more often.
    decide: async (request, context, facts) => {
      // An x402 payment is never at the cloud: only a card's merchant is learned there.
      if (facts.replay !== true && request.kind !== 'ap2_mandate' && request.kind !== 'x402') await learnMerchant(services, parts, request.merchant, context);
      // An unbound x402 authorization past its time gives its reservation back before anything is decided.
      await expireDue(deps);
      return parts.policy.decide(request, context, facts);
    },
    approvals: parts.approvals,
    heldWindows: parts.heldWindows,
    mandates: mandateDeps(services, () => enrolledDevice(services, signer, cloud)),
    x402: parts.x402,
  };
  return deps;
}

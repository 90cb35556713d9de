import { CloudClock } from '../cloud/cloud-clock.js';
import { CloudClient, UPSTREAM_TIMEOUT_MS } from '../cloud/cloud-client.js';
import { httpCloudGateway } from '../cloud/http-cloud-gateway.js';
import type { ProxyUpstream } from '../proxy/signing-proxy.js';
import type { CloudGateway } from '../core/cloud-gateway.js';
import { StoredAuthorizationLedger } from '../core/authorization-ledger.js';
import { observingGateway } from '../core/authorization-status.js';
import type { CoreDeps, EnrolledDevice } from '../core/core-deps.js';
import { SignedWindowCache } from '../core/signed-window-cache.js';
import type { AuditAppendResult } from '../datadir/audit-log.js';
import { sharedAuditWriter } from '../datadir/audit-writer.js';
import type { AuditEntry } from '../datadir/audit-entry.js';
import { DataDirError } from '../datadir/data-dir-error.js';
import { effectiveCloudUrl } from '../datadir/config.js';
import { LatchError } from '../errors/latch-error.js';
import { PolicyGate } from '../policy/policy-gate.js';
import { OwnerPresence } from '../core/owner-presence.js';
import type { StoredPasskey } from '../datadir/passkeys.js';
import { HeldWindows } from '../core/held-windows.js';
import { OwnerSessions, OWNER_SESSION_SECONDS_MAX } from '../core/owner-sessions.js';
import { bindApprovals } from './approval-binding.js';
import { auditAnchorKeeper, type AuditAnchorKeeper } from './audit-anchor-keeper.js';
import { outcomeEntry, requestAuditEntries, signatureEntry } from './audit-records.js';
import { WindowNotRecorded } from '../core/signature-audit.js';
import type { DaemonServices } from './services.js';

export type { ProxyUpstream } from '../proxy/signing-proxy.js';

/** The daemon's bound core: the CoreDeps its handlers use, and the upstream the proxy uses. */
export interface CoreBinding {
  deps: CoreDeps;
  /** Every authorization this device signed for registration, in state.journal (GET /authorizations reads it). */
  authorizationLedger: StoredAuthorizationLedger;
  /** The audit chain's anchor in state.journal: confirmed at start, moved forward by every append. */
  auditAnchor: AuditAnchorKeeper;
  /** The spending policy: the decision step of every authorization, and GET /policy, POST /policy/check. */
  policy: PolicyGate;
  /** The cloud's clock as learned from its answers (skew shown by /health and latch doctor). */
  cloudClock: CloudClock;
  /** Appends one line to audit.log durably (owner actions: policy_changed, agent_added, ...). */
  appendAudit(entry: AuditEntry): Promise<unknown>;
  /** The owner's presence: its factors, the one passphrase check, the owner sessions (docs/decisions.md §21). */
  presence: OwnerPresence;
  proxyUpstream(): ProxyUpstream;
}

/**
 * bindCore gives the core operations the daemon's state: the enrolled key and device id, a cloud
 * client for the effective cloud URL (rebuilt only when that URL changes), and the audit log.
 * Every signature, of a policy window, a revocation or an upstream request, is on disk in
 * audit.log before the request it belongs to goes anywhere.
 */
export function bindCore(services: DaemonServices): CoreBinding {
  const timeoutMs = upstreamTimeoutMs(services.env);
  let cached: { url: string; client: CloudClient; gateway: CloudGateway } | undefined;
  // Replaced with the client when the cloud URL changes: another cloud has another clock.
  let cloudClock = new CloudClock();
  const authorizationLedger = new StoredAuthorizationLedger(services.stateStore);
  const nowSeconds = () => Math.floor(Date.now() / 1000);
  const policy = new PolicyGate({
    policy: services.policy,
    authorizations: authorizationLedger,
    store: services.stateStore,
    nowSeconds,
    log: (event, fields) => services.logger.info(event, fields),
  });

  /**
   * appendRecord appends to audit.log or throws, so that nothing is signed unrecorded. When the log is
   * damaged or unsafe, the caller gets 503 data_directory_unavailable; the operator's log says which file and
   * what to do, since the DataDirError's message names both.
   */
  const writer = sharedAuditWriter(services.home);
  const auditAnchor = auditAnchorKeeper(services.home, services.stateStore);
  const appendRecord = async (entry: AuditEntry): Promise<AuditAppendResult> => {
    try {
      const appended = await writer.append(entry);
      // The line is on disk: the log must reach it from now on (docs/decisions.md §20).
      auditAnchor.note({ seq: appended.record.seq, hash: appended.hash });
      return appended;
    } catch (error) {
      if (error instanceof DataDirError) services.logger.error('audit_append_refused', { reason: error.code, detail: error.message });
      throw error;
    }
  };

  const cloudFor = (url: string) => {
    if (cached === undefined || cached.url !== url) {
      cloudClock = new CloudClock();
      const client = new CloudClient({
        cloudUrl: url,
        clock: cloudClock,
        userAgent: `latch/${services.version}`,
        timeoutMs,
        onRequestSigned: async (record) => {
          try {
            for (const entry of requestAuditEntries(record)) await appendRecord(entry);
          } catch (error) {
            // The request is not sent; the core must hear that the window it carried never left.
            throw record.window === undefined ? error : new WindowNotRecorded(error);
          }
        },
      });
      cached = { url, client, gateway: observingGateway(httpCloudGateway(client), authorizationLedger) };
    }
    return cached;
  };

  /**
   * enrolled resolves the device key, device id and cloud once. A concurrent `latch setup` may
   * rename config.json between the two reads; read the pair again until it holds still
   * (deviceKey resolves the key config.json names).
   */
  const enrolled = (): EnrolledDevice & { client: CloudClient } => {
    let key = services.deviceKey();
    let config = services.config();
    for (let attempt = 1; attempt < 3 && key !== undefined && config.key_id !== undefined && config.key_id !== key.keyId; attempt++) {
      key = services.deviceKey();
      config = services.config();
    }
    const url = effectiveCloudUrl(config, services.env);
    if (key === undefined || config.device_id === undefined || url === undefined) throw new LatchError('device_not_enrolled');
    // Never sign with one device's key under another device's id.
    if (config.key_id !== undefined && config.key_id !== key.keyId) {
      throw new LatchError('device_not_enrolled', { message: 'device.key is not the key config.json enrolled; run latch setup --reconnect.' });
    }
    const { client, gateway } = cloudFor(url);
    return { key, deviceId: config.device_id, cloud: gateway, client };
  };

  const approvals = bindApprovals(services, appendRecord);
  const presence = new OwnerPresence({
    // The passphrase file is read at each question, so `latch approvals passphrase set|clear`
    // applies at once; an unsafe or damaged file throws (503), never "no factor".
    factors: [
      { name: 'passphrase', configured: () => approvals.passphrase() !== undefined, generation: () => approvals.passphrase()?.id },
      // A registered passkey (the owner console) is a factor like the passphrase (docs/decisions.md §25);
      // its generation is the set of credential ids, so removing or adding one ends owner sessions.
      { name: 'passkey', configured: () => services.passkeys().length > 0, generation: () => passkeyGeneration(services.passkeys()) },
    ],
    lockout: approvals.lockout,
    passphrase: approvals.passphrase,
    sessions: new OwnerSessions(() => services.config().owner_session_seconds ?? OWNER_SESSION_SECONDS_MAX),
    nowSeconds,
  });
  const heldWindows = new HeldWindows(services.stateStore);
  const deps: CoreDeps = {
    device: () => {
      const { key, deviceId, cloud } = enrolled();
      return { key, deviceId, cloud };
    },
    audit: async (signature) => {
      await appendRecord(signatureEntry(signature));
    },
    // The outcome line joins the next group commit; the answer does not wait for it, and a
    // failure to write it is logged (the signature itself was audited before it left).
    outcome: (record) => {
      appendRecord(outcomeEntry(record)).catch(() => services.logger.warn('audit_outcome_not_recorded', { policy_id: record.policyId }));
    },
    nowSeconds,
    cloudNowSeconds: () => cloudClock.nowSeconds(),
    paused: services.paused,
    signedWindows: SignedWindowCache.durable(services.stateStore),
    authorizations: authorizationLedger,
    decide: policy.decide,
    approvals,
    heldWindows,
  };
  return {
    deps,
    authorizationLedger,
    auditAnchor,
    policy,
    presence,
    appendAudit: appendRecord,
    get cloudClock() {
      return cloudClock;
    },
    proxyUpstream: () => {
      const { client, key } = enrolled();
      return { client, key, paused: services.paused, heldWindows, ledger: authorizationLedger, nowSeconds };
    },
  };
}

/** The environment variable that changes the upstream deadline (docs/decisions.md §13: 10 s by default). */
export const UPSTREAM_TIMEOUT_ENV = 'LATCH_UPSTREAM_TIMEOUT_MS';
const UPSTREAM_TIMEOUT_MS_MAX = 120_000;

/**
 * upstreamTimeoutMs reads LATCH_UPSTREAM_TIMEOUT_MS: whole milliseconds from 1 to 120000, for a
 * slow network or for tests that need a timeout quickly. A malformed value stops the daemon from
 * starting rather than silently keeping the default.
 */
export function upstreamTimeoutMs(env: NodeJS.ProcessEnv): number {
  const text = env[UPSTREAM_TIMEOUT_ENV];
  if (text === undefined || text === '') return UPSTREAM_TIMEOUT_MS;
  if (!/^[1-9][0-9]{0,5}$/.test(text) || Number(text) > UPSTREAM_TIMEOUT_MS_MAX) {
    throw new Error(`${UPSTREAM_TIMEOUT_ENV} must be a whole number of milliseconds from 1 to ${UPSTREAM_TIMEOUT_MS_MAX}`);
  }
  return Number(text);
}

/** passkeyGeneration names the registered passkeys without revealing anything secret (they are public keys). */
function passkeyGeneration(passkeys: readonly StoredPasskey[]): string | undefined {
  const ids = passkeys.map((key) => key.id);
  return ids.length === 0 ? undefined : ids.sort().join(',');
}

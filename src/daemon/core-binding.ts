import { CloudClient, UPSTREAM_TIMEOUT_MS, type RequestSignatureRecord } from '../cloud/cloud-client.js';
import type { CoreDeps, SignatureAudit } from '../core/core-deps.js';
import { SignedWindowCache } from '../core/signed-window-cache.js';
import type { AuditAppendResult } from '../datadir/audit-log.js';
import { sharedAuditWriter } from '../datadir/audit-writer.js';
import type { AuditEntry } from '../datadir/audit-entry.js';
import { DataDirError } from '../datadir/data-dir-error.js';
import { effectiveCloudUrl } from '../datadir/config.js';
import { LatchError } from '../errors/latch-error.js';
import { formatMinor } from '../money/amount.js';
import type { DaemonServices } from './services.js';

/** The daemon's bound core: the CoreDeps its handlers use, and the cloud client the proxy uses. */
export interface CoreBinding {
  deps: CoreDeps;
  cloud(): CloudClient;
}

/**
 * bindCore gives the core operations the daemon's state: the enrolled key and device id, a cloud
 * client for the effective cloud URL (rebuilt only when that URL changes), and the audit log.
 * Every signature, of a policy window, a revocation or an upstream request, is on disk in
 * audit.log before the request it belongs to goes anywhere.
 */
export function bindCore(services: DaemonServices): CoreBinding {
  const timeoutMs = upstreamTimeoutMs(services.env);
  let cached: { url: string; client: CloudClient } | undefined;

  const enrolled = () => {
    // A concurrent `latch setup` may rename config.json between the two reads; read the pair
    // again until it holds still (deviceKey resolves the key config.json names).
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
    return { key, deviceId: config.device_id, url };
  };

  /**
   * appendRecord appends to audit.log or throws, so that nothing is signed unrecorded. When the log is
   * damaged or unsafe, the caller gets 503 data_directory_unavailable; the operator's log says which file and
   * what to do, since the DataDirError's message names both.
   */
  const writer = sharedAuditWriter(services.home);
  const appendRecord = async (entry: AuditEntry): Promise<AuditAppendResult> => {
    try {
      return await writer.append(entry);
    } catch (error) {
      if (error instanceof DataDirError) services.logger.error('audit_append_refused', { reason: error.code, detail: error.message });
      throw error;
    }
  };

  const auditRequestSignature = async (signed: RequestSignatureRecord): Promise<void> => {
    await appendRecord({
      operation: 'sign_request',
      key_id: signed.keyId,
      request_id: signed.caller?.requestId ?? null,
      user_agent: signed.caller?.userAgent ?? null,
      method: signed.method,
      path: signed.path,
    });
  };

  const cloud = (): CloudClient => {
    const { url } = enrolled();
    if (cached === undefined || cached.url !== url) {
      cached = {
        url,
        client: new CloudClient({
          cloudUrl: url,
          signingKey: () => services.deviceKey(),
          userAgent: `latch/${services.version}`,
          timeoutMs,
          onRequestSigned: auditRequestSignature,
        }),
      };
    }
    return cached.client;
  };

  const audit = async (signature: SignatureAudit): Promise<void> => {
    await appendRecord({
      operation: signature.operation,
      policy_id: signature.policyId,
      card_id: signature.cardId,
      merchant: signature.merchant,
      amount: signature.amountMinor === null ? null : formatMinor(signature.amountMinor),
      currency: signature.currency,
      key_id: signature.keyId,
      request_id: signature.caller.requestId,
      user_agent: signature.caller.userAgent,
    });
  };

  const deps: CoreDeps = {
    cloud,
    device: () => {
      const { key, deviceId } = enrolled();
      return { key, deviceId };
    },
    audit,
    nowSeconds: () => Math.floor(Date.now() / 1000),
    signedWindows: SignedWindowCache.durable(services.stateStore),
  };
  return { deps, cloud };
}

/** The environment variable that changes the upstream deadline (decisions §13: 10 s by default). */
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

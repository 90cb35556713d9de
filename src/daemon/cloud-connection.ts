/**
 * The daemon's connection to its cloud: one signed client (and the gateway the core calls) for the
 * effective cloud URL, rebuilt only when that URL changes, with the cloud's clock as learned from
 * its answers. Every upstream request is on disk in audit.log before it is sent.
 */
import { CloudClock } from '../cloud/cloud-clock.js';
import { CloudClient, UPSTREAM_TIMEOUT_MS } from '../cloud/cloud-client.js';
import { httpCloudGateway } from '../cloud/http-cloud-gateway.js';
import type { StoredAuthorizationLedger } from '../core/authorization-ledger.js';
import { observingGateway } from '../core/authorization-status.js';
import type { CloudGateway } from '../core/cloud-gateway.js';
import type { CloudReads } from '../operations/cloud-reads.js';
import { WindowNotRecorded } from '../core/signature-audit.js';
import type { AuditRecorder } from './audit-recorder.js';
import { requestAuditEntries } from './audit-records.js';
import type { DaemonServices } from './services.js';
import { assertFetchCanRun } from '../runtime/wasm-memory.js';

/** The client and gateway of one cloud URL. */
export interface CloudForUrl {
  url: string;
  client: CloudClient;
  gateway: CloudGateway & CloudReads;
}

/** CloudConnection gives the cloud of a URL, and the clock of the cloud last asked for. */
export interface CloudConnection {
  /** cloudFor returns the client for url: the same one while the URL stays the same. */
  cloudFor(url: string): CloudForUrl;
  /** clock is the current cloud's clock (skew shown by /health and latch doctor). */
  clock(): CloudClock;
}

/**
 * cloudConnection makes the connection; the client itself is built at the first request that needs
 * it. timeoutMs is upstreamTimeoutMs(env), read by the caller before anything else is made.
 */
export function cloudConnection(services: DaemonServices, options: { timeoutMs: number; ledger: StoredAuthorizationLedger; audit: AuditRecorder }): CloudConnection {
  const { timeoutMs, ledger, audit } = options;
  let cached: CloudForUrl | undefined;
  // Replaced with the client when the cloud URL changes: another cloud has another clock.
  let cloudClock = new CloudClock();
  const cloudFor = (url: string): CloudForUrl => {
    if (cached === undefined || cached.url !== url) {
      cloudClock = new CloudClock();
      const client = new CloudClient({
        cloudUrl: url,
        clock: cloudClock,
        userAgent: `latch/${services.version}`,
        timeoutMs,
        assertFetchCanRun,
        onRequestSigned: async (record) => {
          try {
            for (const entry of requestAuditEntries(record)) await audit.append(entry);
          } catch (error) {
            // The request is not sent; the core must hear that the window it carried never left.
            throw record.window === undefined ? error : new WindowNotRecorded(error);
          }
        },
      });
      cached = { url, client, gateway: observingGateway(httpCloudGateway(client), ledger) };
    }
    return cached;
  };
  return { cloudFor, clock: () => cloudClock };
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

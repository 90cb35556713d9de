import { chmodSync, mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { assertPrivate } from '../datadir/permissions.js';
import type { EventLog } from '../http/event-log.js';
import { LOOPBACK_HOSTS } from '../http/loopback.js';
import { Router } from '../http/router.js';
import { loadOrCreateAdminKey } from './admin-key.js';
import { adminRoutes } from './http/admin-routes.js';
import { identityDirectoryRoutes } from './http/identity-directory-routes.js';
import { cloudRoutes } from './http/cloud-routes.js';
import { FairTurns } from './http/fair-turns.js';
import type { SandboxContext } from './http/sandbox-context.js';
import { createSandboxServer } from './http/sandbox-server.js';
import { Ledger, type LedgerStart } from './ledger/ledger.js';
import { SNAPSHOT_FILE } from './ledger/snapshot.js';
import type { SandboxState } from './ledger/state.js';
import { expireDue } from './ops/expiry.js';
import { DEFAULT_LIMITS, type SandboxLimits } from './ops/limits.js';

/** The journal file's name inside the sandbox data directory. */
export const JOURNAL_FILE = 'journal';
const SWEEP_INTERVAL_MS_DEFAULT = 1_000;
/**
 * A new snapshot is written once this many records follow the last one (docs/decisions.md §15.9),
 * so a start replays at most about this many records after loading the snapshot.
 */
export const SNAPSHOT_EVERY_RECORDS_DEFAULT = 100_000;

export interface SandboxOptions {
  /** Where the journal and admin_key live; created 0700 when missing. The CLI uses `$LATCH_HOME/sandbox`. */
  dataDir: string;
  /** TCP port; 0 (the default) picks a free one. */
  port?: number;
  /** Address to listen on; `127.0.0.1` by default. */
  host?: string;
  /**
   * Base of the ledger clock in milliseconds (Date.now by default). Window validity, expiry,
   * recurring periods, daily limits and setup-token expiry use it plus the offset set by
   * POST /v1/sandbox/clock; RFC 9421 freshness always uses the real clock.
   */
  now?: () => number;
  /** Overrides of the business limits (merchant-verification cap, amount maximum). */
  limits?: Partial<SandboxLimits>;
  /** How often the expiry sweeper runs; reads are consistent without it. */
  sweepIntervalMs?: number;
  /** Structured log for unexpected errors; silent when absent. */
  log?: EventLog;
  /** Records between snapshots (SNAPSHOT_EVERY_RECORDS_DEFAULT); Infinity writes none. */
  snapshotEveryRecords?: number;
}

/** A running sandbox cloud. */
export interface Sandbox {
  /** The `cloud_url` to give the daemon: `http://<host>:<port>`. */
  url: string;
  port: number;
  /** The admin key (tests use it; never log it) and the file holding it. */
  adminKey: string;
  adminKeyPath: string;
  journalPath: string;
  /** Bytes of a torn last journal record dropped at start (0 normally). */
  droppedJournalBytes: number;
  /** How the ledger found its state: from the snapshot or the whole journal, and why a snapshot was ignored. */
  ledgerStart: LedgerStart;
  /** writeSnapshot writes a snapshot of the state now (false when there is nothing new to cover). */
  writeSnapshot(): Promise<boolean>;
  /**
   * addAuthority adds a host:port this cloud is also reached as (a reverse proxy in front of it),
   * so signatures naming that authority are accepted.
   */
  addAuthority(authority: string): void;
  /** The live ledger state, for tests that check invariants in-process. */
  state(): Readonly<SandboxState>;
  /** close stops the sweeper and the listener, waits for queued operations and closes the journal. */
  close(): Promise<void>;
}

/**
 * createSandbox opens (or creates) the sandbox in dataDir, restores its state (its snapshot and
 * the journal records after it, or the whole journal), and listens.
 * It refuses to start when the journal is damaged before its last record (JournalCorruptError)
 * or when the directory or admin key file is readable by others (DataDirError).
 */
export async function createSandbox(options: SandboxOptions): Promise<Sandbox> {
  // A umask such as 0277 leaves a new directory 0500, where the admin key cannot be written; the
  // directory is new and only ours, so it gets its 0700 in full (docs/decisions.md §24.8).
  if (mkdirSync(options.dataDir, { recursive: true, mode: 0o700 }) !== undefined) chmodSync(options.dataDir, 0o700);
  assertPrivate(options.dataDir, 'dir');
  const { adminKey, adminKeyPath } = loadOrCreateAdminKey(options.dataDir);
  const journalPath = path.join(options.dataDir, JOURNAL_FILE);
  const snapshotPath = path.join(options.dataDir, SNAPSHOT_FILE);
  const ledgerOptions = { journalPath, snapshotPath, beforeEach: expireDue, ...(options.now === undefined ? {} : { now: options.now }) };
  const ledger = await Ledger.open(ledgerOptions);
  const sandbox: SandboxContext = {
    ledger,
    limits: { ...DEFAULT_LIMITS, ...options.limits },
    adminKey,
    pendingNonces: new Set(),
    inFlightKeys: new Set(),
    turns: new FairTurns(),
    ownAuthorities: new Set(),
  };
  const shutdown = new AbortController();
  // Agent key directories the devices registered (docs/decisions.md §23.6), in memory only.
  const router = new Router([...cloudRoutes(sandbox), ...adminRoutes(sandbox), ...identityDirectoryRoutes(sandbox, new Map())]);
  const server = createSandboxServer(router, options.log, shutdown.signal, () => ledger.now());
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    await ledger.close();
    throw error;
  }
  const snapshotEvery = options.snapshotEveryRecords ?? SNAPSHOT_EVERY_RECORDS_DEFAULT;
  const snapshotIfDue = (): void => {
    if (ledger.recordsSinceSnapshot() < snapshotEvery) return;
    ledger.writeSnapshot().catch((error: unknown) => options.log?.warn('snapshot_not_written', { reason: error instanceof Error ? error.message : String(error) }));
  };
  const sweeper = setInterval(() => {
    // An empty operation runs the expiry sweep; a failure here shows on the next request too.
    ledger.run(() => undefined).catch(() => undefined);
    snapshotIfDue();
  }, options.sweepIntervalMs ?? SWEEP_INTERVAL_MS_DEFAULT);
  sweeper.unref();
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  for (const name of ownAuthorities(host, address.port)) sandbox.ownAuthorities.add(name);
  // A start that replayed a long journal writes its snapshot now, after it is already answering.
  snapshotIfDue();
  let closing: Promise<void> | undefined;
  return {
    url: `http://${host}:${address.port}`,
    port: address.port,
    adminKey,
    adminKeyPath,
    journalPath,
    droppedJournalBytes: ledger.droppedBytes,
    ledgerStart: ledger.start,
    writeSnapshot: () => ledger.writeSnapshot(),
    state: () => ledger.state,
    addAuthority: (authority) => {
      sandbox.ownAuthorities.add(authority.toLowerCase());
    },
    close: () => {
      closing ??= (async () => {
        clearInterval(sweeper);
        shutdown.abort();
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeIdleConnections();
        });
        await ledger.close();
      })();
      return closing;
    },
  };
}

/**
 * ownAuthorities lists the host:port names a client may use for this sandbox: the bound address,
 * and for a loopback address also localhost and the other loopback spelling.
 */
function ownAuthorities(host: string, port: number): string[] {
  const names = [host.toLowerCase()];
  if (host === '127.0.0.1' || host === '[::1]') names.push(...LOOPBACK_HOSTS);
  return [...new Set(names)].map((name) => `${name}:${port}`);
}

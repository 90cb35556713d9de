import { removeListenFile, writeListenFile, type ListenRecord } from '../datadir/listen-file.js';
import { passphraseFromEnv } from '../datadir/device-key.js';
import { agentFiles } from '../datadir/agents.js';
import { lockDataDir, type DaemonLock } from '../datadir/daemon-lock.js';
import { ensureHome } from '../datadir/home.js';
import { assertDataDirSecure } from '../datadir/permissions.js';
import { regenerateCredentials } from '../datadir/regenerate-credentials.js';
import { ensureToken } from '../datadir/token.js';
import { finishKeyRollover } from '../datadir/key-rollover.js';
import { sharedAuditWriter } from '../datadir/audit-writer.js';
import { asDataDirError } from '../datadir/filesystem-error.js';
import { assertFetchCanRun } from '../runtime/wasm-memory.js';
import { connectionsMaxFor } from '../runtime/descriptor-budget.js';
import { readProcessLimits } from '../runtime/process-limits.js';
import { createFrontDoor } from '../http/front-door.js';
import { createLocalServer, DEFAULT_SERVER_LIMITS, type LocalServer, type ServerLimits } from '../http/local-server.js';
import type { Route } from '../http/route.js';
import { Router } from '../http/router.js';
import { createLogger } from '../log/logger.js';
import { variantARoutes } from '../variant-a/routes.js';
import { variantBRoutes } from '../variant-b/routes.js';
import { createServices, type DaemonServices } from './services.js';
import { consoleOrigin, createConsoleFrontDoor } from '../console/console-front-door.js';
import { consoleRoutes, PUBLIC_CONSOLE_PATTERNS } from '../console/console-routes.js';
import { LatchError } from '../errors/latch-error.js';
import { bindConsole, type ConsoleBinding } from './console-binding.js';
import { bindCore } from './core-binding.js';
import { daemonCredentials, listenerDeps, proofKeyFor, proofTokenFor } from './listener-deps.js';
import { REGISTRATION_CHECK_MS } from './identity-registration.js';

/** The canonical listener's default port (Variant A). */
export const DEFAULT_PORT_A = 7723;
/** The compatibility listener's default port (Variant B). */
export const DEFAULT_PORT_B = 7732;
/**
 * How long close() lets in-flight requests finish, by default: well inside the 10 s Docker and
 * the 90 s systemd give before SIGKILL (docs/decisions.md §24.3). Requests holding on for an
 * owner's decision are answered at once when a stop begins, so only signing and cloud calls use it.
 */
export const DEFAULT_CLOSE_DEADLINE_MS = 5_000;

export interface DaemonOptions {
  /** The data directory (resolve `LATCH_HOME` with resolveHome before calling). */
  home: string;
  /** Variant A's port; default 7723, 0 picks a free port. */
  portA?: number;
  /** Variant B's port; default 7732, 0 picks a free port. */
  portB?: number;
  /** Serve Variant A; default true. */
  variantA?: boolean;
  /** Serve Variant B; default true. */
  variantB?: boolean;
  /** The environment (LATCH_KEY_PASSPHRASE, LATCH_CLOUD_URL); default process.env. */
  env?: NodeJS.ProcessEnv;
  /** Where structured log lines go; default process.stderr. */
  logStream?: NodeJS.WritableStream;
  /** The device key's passphrase; default LATCH_KEY_PASSPHRASE from env. */
  passphrase?: string;
  /**
   * The owner console's listener (docs/decisions.md §25), served beside Variant A: its port (0
   * picks a free one; absent, config.json's console_port, else 7724). Absent, there is no console.
   */
  console?: { port?: number };
  /**
   * Connection limits of both listeners (tests shorten them). The connection cap is lowered further
   * when `ulimit -n` cannot hold it (runtime/descriptor-budget.ts).
   */
  limits?: Partial<ServerLimits>;
}

/** The daemon's listeners: Variant A, Variant B and the owner console. */
export type ListenerName = 'a' | 'b' | 'console';

/** The owner console's default port (spec owner-console §1). */
export const DEFAULT_PORT_CONSOLE = 7724;

/** The ports actually bound, for the listeners that are enabled. */
export interface DaemonPorts {
  portA?: number;
  portB?: number;
  portConsole?: number;
}

/** A daemon that is not listening yet; several can run in one process. */
export interface DaemonHandle {
  /**
   * listen checks that this process can run the cloud client (LatchError fetch_unavailable under a
   * small `ulimit -v`), checks and prepares the data directory, opens state.journal, then binds the
   * listeners. It rejects with that LatchError, a DataDirError (unsafe, broken or unwritable data
   * directory) or the listen error (EADDRINUSE ...); on rejection nothing stays bound. It may be
   * called once: again, or after close(), it rejects.
   */
  listen(): Promise<DaemonPorts>;
  /**
   * close stops accepting, answers requests holding on for an owner's decision at once (202 with
   * the pending approval), lets the other in-flight requests finish within deadlineMs, then drops
   * the rest. It resolves once state.journal, audit.log and audit.head are closed.
   */
  close(options?: { deadlineMs?: number; reason?: string }): Promise<void>;
  /** addresses lists the bound address of each listening listener (empty before listen). */
  addresses(): Array<{ listener: ListenerName; address: string; port: number }>;
  readonly services: DaemonServices;
}

/**
 * createDaemon makes a daemon: the services and one loopback listener per enabled variant, each
 * behind its own front door. It holds no global state. Nothing touches the disk or the network
 * until listen().
 */
export function createDaemon(options: DaemonOptions): DaemonHandle {
  const env = options.env ?? process.env;
  const serveA = options.variantA ?? true;
  const serveB = options.variantB ?? true;
  if (!serveA && !serveB) throw new Error('both listeners are disabled; enable Variant A or Variant B');
  const logger = createLogger({ stream: options.logStream ?? process.stderr });
  const passphrase = options.passphrase ?? passphraseFromEnv(env);
  const services = createServices({ home: options.home, logger, passphrase, env });

  // The serving gate (see listen): connections are accepted once a port is bound, but requests
  // wait until the credentials are regenerated.
  let openGate: () => void = () => undefined;
  let failGate: (error: unknown) => void = () => undefined;
  const ready = new Promise<void>((resolve, reject) => {
    openGate = resolve;
    failGate = reject;
  });
  ready.catch(() => undefined);

  // One credential set for both listeners: an agent's last use is one record.
  const credentials = daemonCredentials(services);
  const listeners: Array<{ name: ListenerName; server: LocalServer }> = [];
  const wantedConnections = options.limits?.connectionsMax ?? DEFAULT_SERVER_LIMITS.connectionsMax;
  const openFiles = readProcessLimits().openFiles;
  const connectionsMax = connectionsMaxFor(openFiles, (serveA ? 1 : 0) + (serveB ? 1 : 0) + (serveA && options.console !== undefined ? 1 : 0), wantedConnections);
  const limits: Partial<ServerLimits> = { ...options.limits, connectionsMax };
  const core = bindCore(services);
  const addListener = (name: 'a' | 'b', port: number, routes: Route[]): void => {
    const router = new Router(routes);
    const frontDoor = createFrontDoor({ listener: name, router, credentials: credentials.list, noteCaller: credentials.noteUse, presence: core.presence, log: logger });
    const server = createLocalServer({
      listener: name,
      port,
      frontDoor,
      log: logger,
      ready,
      // Variant A's public /health is where clients check the daemon's identity (daemon-proof.ts).
      ...(name === 'a' && { proofToken: proofTokenFor(services, credentials), proofKey: proofKeyFor(services) }),
      limits,
    });
    listeners.push({ name, server });
  };
  // The console answers A's POST /console/login-code; it exists once A's table does (it calls A's routes).
  let ownerConsole: ConsoleBinding | undefined;
  let addConsoleListener: (() => void) | undefined;
  let consolePort = 0;
  const deps = listenerDeps(services, core, () => {
    if (ownerConsole === undefined) throw new LatchError('not_found', { message: 'The owner console is off on this daemon (started with --no-console).' });
    const { code, expiresMs } = ownerConsole.sessions.issueCode();
    return { url: `${consoleOrigin(consolePort)}/login#${code}`, expires_at: new Date(expiresMs).toISOString().replace(/\.\d{3}Z$/, 'Z') };
  });
  const routesA = variantARoutes(deps.a);
  if (serveA) addListener('a', options.portA ?? DEFAULT_PORT_A, routesA);
  if (serveA && options.console !== undefined) {
    ownerConsole = bindConsole(services, core, new Router(routesA), () => consolePort);
    const frontDoor = createConsoleFrontDoor({
      consoleRoutes: new Router(consoleRoutes(ownerConsole.deps)),
      apiRoutes: new Router(routesA),
      sessions: ownerConsole.sessions,
      log: logger,
      publicConsolePatterns: PUBLIC_CONSOLE_PATTERNS,
      presenceConfigured: () => core.presence.configured(),
    });
    const consoleOptions = options.console;
    // Its port may come from config.json, which is read only once listen() has checked the directory.
    addConsoleListener = () =>
      listeners.push({
        name: 'console',
        server: createLocalServer({ listener: 'console', port: consoleOptions.port ?? services.config().console_port ?? DEFAULT_PORT_CONSOLE, frontDoor, log: logger, ready, limits }),
      });
  }
  if (serveB) addListener('b', options.portB ?? DEFAULT_PORT_B, variantBRoutes(deps.b));

  let state: 'new' | 'listening' | 'closed' = 'new';
  // daemon.lock, held from the start of listen() until close() (docs/decisions.md §20).
  let lock: DaemonLock | undefined;
  let listening: ListenRecord | undefined;
  let registrationTimer: NodeJS.Timeout | undefined;
  const closeAll = (deadlineMs: number): Promise<void> => Promise.all(listeners.map((l) => l.server.close(deadlineMs))).then(() => undefined);

  return {
    services,
    addresses: () =>
      listeners.flatMap(({ name, server }) => {
        const bound = server.address();
        return bound === undefined ? [] : [{ listener: name, ...bound }];
      }),
    async listen() {
      if (state !== 'new') throw new Error(state === 'closed' ? 'listen() after close(): create a new daemon' : 'listen() may be called once');
      state = 'listening';
      try {
        // Before anything is written or bound: fetch must not crash the process later (wasm-memory.ts).
        assertFetchCanRun();
        lock = prepareDataDir(services, passphrase);
        addConsoleListener?.();
      } catch (error) {
        state = 'closed';
        throw asDataDirError(error, services.home) ?? error;
      }
      try {
        // Remembered state is back in memory before the first request can need it.
        await services.stateStore.open();
        // A deleted, emptied or shortened audit.log stops the start (docs/decisions.md §20).
        await core.auditAnchor.confirm();
      } catch (error) {
        // Closing a store that did not open is a no-op.
        await services.stateStore.close();
        lock.release();
        state = 'closed';
        throw asDataDirError(error, services.home) ?? error;
      }
      const ports: DaemonPorts = {};
      try {
        for (const { name, server } of listeners) {
          const port = await server.listen();
          if (name === 'a') ports.portA = port;
          else if (name === 'b') ports.portB = port;
          else ports.portConsole = consolePort = port;
        }
        // A token captured while the daemon was down dies here. The ports are held first, so no
        // other program can take them between the rotation and serving; requests that arrive on
        // a port bound earlier wait on the gate rather than get a 503: the rotation is one atomic
        // file write, the wait is milliseconds, and clients need no new retry rule. A request that
        // carries the old token is then refused (401) and its client re-reads the file.
        regenerateCredentials(services.home);
        services.token();
        openGate();
        // The cloud's copy of the agents' key directory (docs/decisions.md §23.6); never blocks the start.
        deps.registrar.check();
        registrationTimer = setInterval(() => deps.registrar.check(), REGISTRATION_CHECK_MS);
        registrationTimer.unref();
      } catch (error) {
        failGate(error);
        await closeAll(0);
        await services.stateStore.close();
        lock.release();
        state = 'closed';
        throw asDataDirError(error, services.home) ?? error;
      }
      if (connectionsMax < wantedConnections) logger.warn('connections_max_lowered', { open_files: openFiles, connections_max: connectionsMax, wanted: wantedConnections });
      logger.info('daemon_listening', { port_a: ports.portA ?? null, port_b: ports.portB ?? null, port_console: ports.portConsole ?? null, version: services.version, connections_max: connectionsMax });
      // For clients of this data directory that have no LATCH_URL (docs/decisions.md §19).
      listening = { pid: process.pid, port_a: ports.portA ?? null, port_b: ports.portB ?? null, started_at: new Date().toISOString() };
      writeListenFile(services.home, listening);
      return ports;
    },
    async close(closeOptions = {}) {
      if (state === 'closed') return;
      const wasListening = state === 'listening';
      state = 'closed';
      const deadlineMs = closeOptions.deadlineMs ?? DEFAULT_CLOSE_DEADLINE_MS;
      if (wasListening) logger.info('daemon_stopping', { deadline_ms: deadlineMs, ...(closeOptions.reason !== undefined && { reason: closeOptions.reason }) });
      if (listening !== undefined) removeListenFile(services.home, listening);
      clearInterval(registrationTimer);
      await closeAll(deadlineMs);
      // After the listeners: a request that finished in time has its state record written.
      if (wasListening) await core.auditAnchor.flush();
      await services.stateStore.close();
      // And its audit lines: the writer closes audit.log and brings audit.head up to the end.
      await sharedAuditWriter(services.home).idle();
      // Last: until the journal is closed, another daemon must not open it.
      lock?.release();
      if (wasListening) logger.info('daemon_stopped', {});
    },
  };
}

/**
 * prepareDataDir runs the startup checks in the order that reads no secret from an unsafe place:
 * create the directory if missing, refuse any unsafe file, take the directory's lock (a second
 * daemon stops here, before it writes anything), then create or read the token, and load the
 * device key and config so that a wrong passphrase or a corrupt file stops the start. It returns
 * the lock, held; on failure nothing is held.
 */
function prepareDataDir(services: DaemonServices, passphrase: string | undefined): DaemonLock {
  ensureHome(services.home);
  // Agent tokens are secrets like daemon_token: an exposed one stops the start (docs/decisions.md §20).
  assertDataDirSecure(services.home, agentFiles(services.home));
  const lock = lockDataDir(services.home);
  try {
    loadDataDir(services, passphrase);
  } catch (error) {
    lock.release();
    throw error;
  }
  return lock;
}

function loadDataDir(services: DaemonServices, passphrase: string | undefined): void {
  ensureToken(services.home);
  // A key that a stopped `latch setup` staged and config.json already names is put in place.
  finishKeyRollover(services.home, passphrase, services.config().key_id, { discardUnnamed: false });
  services.token();
  const key = services.deviceKey();
  if (key !== undefined) services.logger.info('device_key_loaded', { key_id: key.keyId, storage: key.storage });
  services.config();
}

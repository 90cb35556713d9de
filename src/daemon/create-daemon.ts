/**
 * The daemon's embedding entry: createDaemon makes one daemon from its options, composed of the
 * services, the bound core, the listeners (build-listeners.ts) and the start and stop sequences
 * (daemon-lifecycle.ts). Each part is in its own file; this one only puts them together.
 */
import { passphraseFromEnv } from '../signer/key-admin.js';
import type { ServerLimits } from '../http/local-server.js';
import { createLogger, type Logger } from '../log/logger.js';
import { buildListeners, connectionBudget, type ListenerChoices } from './build-listeners.js';
import { bindCore } from './core-binding.js';
import { DaemonLifecycle } from './daemon-lifecycle.js';
import type { DaemonPorts, ListenerName } from './daemon-listeners.js';
import { createServingGate } from './serving-gate.js';
import { createServices } from './services.js';

export { DEFAULT_PORT_CONSOLE, type DaemonPorts, type ListenerName } from './daemon-listeners.js';

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
  /*
   * No key, journal or service registry: an embedding program reaches the daemon through its
   * listeners like any client, so the signer's key never leaves the daemon (docs/decisions.md §28).
   */
}

/**
 * createDaemon makes a daemon: the services and one loopback listener per enabled variant, each
 * behind its own front door. It holds no global state. Nothing touches the disk or the network
 * until listen().
 */
export function createDaemon(options: DaemonOptions): DaemonHandle {
  return createDaemonWithLogger(options).daemon;
}

/**
 * createDaemonWithLogger is createDaemon for `latch daemon`, which reports its crashes through the
 * daemon's own logger (the one that knows the token, so a crash report cannot carry it). Not
 * exported by the package.
 */
export function createDaemonWithLogger(options: DaemonOptions): { daemon: DaemonHandle; logger: Logger } {
  const env = options.env ?? process.env;
  const choices: ListenerChoices = {
    serveA: options.variantA ?? true,
    serveB: options.variantB ?? true,
    portA: options.portA ?? DEFAULT_PORT_A,
    portB: options.portB ?? DEFAULT_PORT_B,
    console: options.console,
  };
  if (!choices.serveA && !choices.serveB) throw new Error('both listeners are disabled; enable Variant A or Variant B');
  const logger = createLogger({ stream: options.logStream ?? process.stderr });
  const passphrase = options.passphrase ?? passphraseFromEnv(env);
  const services = createServices({ home: options.home, logger, env });
  // The serving gate (see daemon-lifecycle.ts): connections are accepted once a port is bound, but
  // requests wait until the credentials are regenerated.
  const gate = createServingGate();
  const budget = connectionBudget(choices, options.limits);
  const limits: Partial<ServerLimits> = { ...options.limits, connectionsMax: budget.connectionsMax };
  const core = bindCore(services, passphrase);
  const plan = buildListeners(services, core, choices, { ready: gate.ready, limits });
  const lifecycle = new DaemonLifecycle({ services, signer: core.signer, passphrase, auditAnchor: core.auditAnchor, plan, gate, budget });
  const daemon: DaemonHandle = {
    addresses: () => plan.listeners.addresses(),
    listen: () => lifecycle.start(),
    close: async (closeOptions = {}) => lifecycle.stop(closeOptions.deadlineMs ?? DEFAULT_CLOSE_DEADLINE_MS, closeOptions.reason),
  };
  return { daemon, logger };
}

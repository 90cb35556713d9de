/**
 * The daemon's one life, as an explicit state machine: 'new' until listen(); 'listening' from the
 * start of listen() (while it starts, too) until close(); then 'closed' for good. listen() runs the
 * start sequence once, close() the stop sequence once. A failed start leaves nothing bound or held
 * and the daemon closed. The order of the steps is the point: each comment says why.
 */
import { removeListenFile, writeListenFile, type ListenRecord } from '../datadir/listen-file.js';
import type { DaemonLock } from '../datadir/daemon-lock.js';
import { sharedAuditWriter } from '../datadir/audit-writer.js';
import { asDataDirError } from '../datadir/filesystem-error.js';
import { regenerateCredentials } from '../datadir/regenerate-credentials.js';
import { assertFetchCanRun } from '../runtime/wasm-memory.js';
import type { AuditAnchorKeeper } from './audit-anchor-keeper.js';
import type { ConnectionBudget, ListenerPlan } from './build-listeners.js';
import type { DaemonPorts } from './daemon-listeners.js';
import { REGISTRATION_CHECK_MS } from './identity-registration.js';
import { prepareDataDir } from './prepare-data-dir.js';
import type { ServingGate } from './serving-gate.js';
import type { DaemonServices } from './services.js';
import type { Signer } from '../signer/index.js';

/** Where a daemon is in its one life. */
export type DaemonState = 'new' | 'listening' | 'closed';

/** What the start and stop sequences act on. */
export interface LifecycleParts {
  services: DaemonServices;
  /** The daemon's signer: start loads the device key through it, so a wrong passphrase stops the start. */
  signer: Pick<Signer, 'deviceKey'>;
  /** The device key's passphrase, if any. */
  passphrase: string | undefined;
  auditAnchor: AuditAnchorKeeper;
  /** The bounded refusal lines: what they counted is written once the listeners are closed. */
  refusals?: { stop(): void };
  plan: ListenerPlan;
  gate: ServingGate;
  budget: ConnectionBudget;
}

/** DaemonLifecycle runs one daemon's start and stop sequences and keeps what they hold. */
export class DaemonLifecycle {
  private state: DaemonState = 'new';
  // daemon.lock, held from the start of listen() until close() (docs/decisions.md §20).
  private lock: DaemonLock | undefined;
  private listening: ListenRecord | undefined;
  private registrationTimer: NodeJS.Timeout | undefined;

  constructor(private readonly parts: LifecycleParts) {}

  /** start is listen(): check the process, prepare the directory, open the state, serve, announce. */
  async start(): Promise<DaemonPorts> {
    if (this.state !== 'new') throw new Error(this.state === 'closed' ? 'listen() after close(): create a new daemon' : 'listen() may be called once');
    this.state = 'listening';
    const lock = this.prepare();
    await this.openState(lock);
    const ports = await this.serve(lock);
    this.announce(ports);
    return ports;
  }

  /** Step 1, before anything is bound: the process can fetch, the data directory is safe and locked. */
  private prepare(): DaemonLock {
    try {
      // Before anything is written or bound: fetch must not crash the process later (wasm-memory.ts).
      assertFetchCanRun();
      this.lock = prepareDataDir(this.parts.services, this.parts.signer, this.parts.passphrase);
      this.parts.plan.addConsole?.();
      return this.lock;
    } catch (error) {
      // The console's port comes from config.json, read after the lock is taken: a failure there
      // lets go of the lock too, so the next start is not refused by a lock nobody holds.
      this.lock?.release();
      throw this.failed(error);
    }
  }

  /** Step 2: state.journal replayed and audit.log checked against its anchor, before any port is bound. */
  private async openState(lock: DaemonLock): Promise<void> {
    const { services } = this.parts;
    try {
      // Remembered state is back in memory before the first request can need it.
      await services.stateStore.open();
      // A deleted, emptied or shortened audit.log stops the start (docs/decisions.md §20).
      await this.parts.auditAnchor.confirm();
    } catch (error) {
      // Closing a store that did not open is a no-op.
      await services.stateStore.close();
      lock.release();
      throw this.failed(error);
    }
  }

  /** Step 3: bind every port, then rotate the credentials and open the serving gate. */
  private async serve(lock: DaemonLock): Promise<DaemonPorts> {
    const { services, plan, gate } = this.parts;
    try {
      const ports = await plan.listeners.listen();
      // A token captured while the daemon was down dies here. The ports are held first, so no
      // other program can take them between the rotation and serving; requests that arrive on
      // a port bound earlier wait on the gate rather than get a 503: the rotation is one atomic
      // file write, the wait is milliseconds, and clients need no new retry rule. A request that
      // carries the old token is then refused (401) and its client re-reads the file.
      regenerateCredentials(services.home);
      services.token();
      gate.open();
      // The cloud's copy of the agents' key directory (docs/decisions.md §23.6); never blocks the start.
      plan.registrar.check();
      this.registrationTimer = setInterval(() => plan.registrar.check(), REGISTRATION_CHECK_MS);
      this.registrationTimer.unref();
      return ports;
    } catch (error) {
      gate.fail(error);
      await plan.listeners.close(0);
      await services.stateStore.close();
      lock.release();
      throw this.failed(error);
    }
  }

  /** Step 4, serving: the log lines and listen.json that say where the daemon listens. */
  private announce(ports: DaemonPorts): void {
    const { services, budget } = this.parts;
    const { connectionsMax, wanted, openFiles } = budget;
    if (connectionsMax < wanted) services.logger.warn('connections_max_lowered', { open_files: openFiles, connections_max: connectionsMax, wanted });
    services.logger.info('daemon_listening', { port_a: ports.portA ?? null, port_b: ports.portB ?? null, port_console: ports.portConsole ?? null, version: services.version, connections_max: connectionsMax });
    // For clients of this data directory that have no LATCH_URL (docs/decisions.md §19).
    this.listening = { pid: process.pid, port_a: ports.portA ?? null, port_b: ports.portB ?? null, started_at: new Date().toISOString() };
    writeListenFile(services.home, this.listening);
  }

  /** failed closes the daemon for good after a failed start and gives the error to throw. */
  private failed(error: unknown): unknown {
    this.state = 'closed';
    return asDataDirError(error, this.parts.services.home) ?? error;
  }

  /** stop is close(): stop accepting, finish or drop requests, then close the files, the lock last. */
  async stop(deadlineMs: number, reason: string | undefined): Promise<void> {
    if (this.state === 'closed') return;
    const wasListening = this.state === 'listening';
    this.state = 'closed';
    const { services, plan } = this.parts;
    if (wasListening) services.logger.info('daemon_stopping', { deadline_ms: deadlineMs, ...(reason !== undefined && { reason }) });
    if (this.listening !== undefined) removeListenFile(services.home, this.listening);
    clearInterval(this.registrationTimer);
    await plan.listeners.close(deadlineMs);
    this.parts.refusals?.stop();
    // After the listeners: a request that finished in time has its audit lines written (the
    // deferred ones too, docs/decisions.md §41) and audit.head brought up to the end, then the
    // anchor moved to them and its state record written.
    await sharedAuditWriter(services.home).idle();
    if (wasListening) await this.parts.auditAnchor.flush();
    await services.stateStore.close();
    // Last: until the journal is closed, another daemon must not open it.
    this.lock?.release();
    if (wasListening) services.logger.info('daemon_stopped', {});
  }
}

/**
 * The one way a command hosts the daemon in its own process (`latch daemon`, `latch start`, and so
 * `npm start` and the service units). Whatever else a command does around it (the quick start's
 * sandbox and enrollment), the process is guarded the same way from its first moment, and the
 * daemon is served and stopped the same way (docs/decisions.md §24.4, §27.5):
 *
 * - SIGUSR1 is answered with a log line, so Node never opens its inspector (127.0.0.1:9229, where
 *   any local user could attach and run code inside a process that holds the token and the key);
 * - SIGTERM, SIGINT and SIGHUP stop it gracefully within the stop deadline, requests waiting for
 *   an owner's decision answered at once; a second signal exits at once;
 * - an uncaught exception is one JSON log line and exit 1, not a stack trace;
 * - a second host on the same data directory is refused (exit 3) naming the daemon serving it.
 */
import type { DaemonHandle } from '../daemon/create-daemon.js';
import { assertNoOtherDaemon } from '../datadir/daemon-lock.js';
import type { Logger } from '../log/logger.js';
import { EXIT } from './exit-codes.js';
import { stopSignal, type StopSignalName } from './stop-signal.js';

/** The ports a daemon listens on, as listen() answers them. */
export type DaemonPorts = Awaited<ReturnType<DaemonHandle['listen']>>;

/** A process guarded to host the daemon: signals, the inspector and crashes handled. */
export interface DaemonHost {
  /**
   * refuseSecondDaemon throws the `locked` DataDirError (exit 3) naming the running daemon when
   * another one serves home; commands call it before they check ports or create anything, so a
   * second host is told about the first, not about a busy port.
   */
  refuseSecondDaemon(home: string): void;
  /** useLogger hands crash reports to the daemon's own logger, which knows its secrets. */
  useLogger(logger: Logger): void;
  /** listen binds the daemon; a failed listen releases the guards and rethrows. */
  listen(daemon: DaemonHandle): Promise<DaemonPorts>;
  /**
   * untilStopped waits for a stop signal, closes the daemon within stopTimeoutMs (requests waiting
   * for an owner's decision are answered at once), then calls closeAfter (what the command serves
   * beside the daemon: the quick start's sandbox) with what is left of the same deadline, and
   * releases the guards. The whole stop takes stopTimeoutMs when closeAfter keeps its deadline.
   */
  untilStopped(daemon: DaemonHandle, stopTimeoutMs: number, closeAfter?: (remainingMs: number) => Promise<void>): Promise<StopSignalName>;
  /** dispose releases the guards (a command that ends before serving). */
  dispose(): void;
  /** crash reports a failure beside the daemon (the quick start's sandbox thread ended) as an uncaught one: one log line, exit 1. */
  crash(error: unknown): void;
}

/** hostDaemonProcess guards this process to host the daemon; call it before anything else. */
export function hostDaemonProcess(logger: Logger): DaemonHost {
  let current = logger;
  // Listening for signals before anything is bound means a SIGTERM during startup still stops cleanly.
  const stop = stopSignal();
  const crash = (error: unknown): void => {
    current.error('daemon_crashed', { error: error instanceof Error ? error.name : typeof error, message: error instanceof Error ? error.message : String(error), exit_code: EXIT.failure });
    process.exit(EXIT.failure);
  };
  const ignoreInspectorSignal = (): void => current.warn('signal_ignored', { signal: 'SIGUSR1', reason: 'the inspector stays closed' });
  process.on('uncaughtException', crash);
  process.on('unhandledRejection', crash);
  process.on('SIGUSR1', ignoreInspectorSignal);
  let disposed = false;
  const dispose = (): void => {
    if (disposed) return;
    disposed = true;
    stop.dispose();
    process.off('uncaughtException', crash);
    process.off('unhandledRejection', crash);
    process.off('SIGUSR1', ignoreInspectorSignal);
  };
  return {
    refuseSecondDaemon: (home) => assertNoOtherDaemon(home),
    useLogger(logger) {
      current = logger;
    },
    async listen(daemon) {
      try {
        return await daemon.listen();
      } catch (error) {
        dispose();
        throw error;
      }
    },
    async untilStopped(daemon, stopTimeoutMs, closeAfter) {
      const signal = await stop.received;
      const stopBy = Date.now() + stopTimeoutMs;
      try {
        await daemon.close({ deadlineMs: stopTimeoutMs, reason: signal });
        // After the daemon: its last requests may still call what closeAfter closes (the cloud).
        await closeAfter?.(Math.max(0, stopBy - Date.now()));
      } finally {
        dispose();
      }
      return signal;
    },
    dispose,
    crash,
  };
}

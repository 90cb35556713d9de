import { EXIT } from './exit-codes.js';

/**
 * The signals that stop a foreground command gracefully. SIGHUP is one of them: the daemon
 * re-reads every file it uses when the file changes, so a reload has nothing left to do, and a
 * hang-up (a closed terminal, `kill -HUP`) otherwise ends the process at once, exit 129, with no
 * drain and no log line (docs/decisions.md §24.4; README's signal table).
 */
export const STOP_SIGNALS = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;

/** One of STOP_SIGNALS. */
export type StopSignalName = (typeof STOP_SIGNALS)[number];

/**
 * stopSignal's `received` resolves with the first stop signal's name. A second one while the
 * command is closing means "now": the process exits at once with code 1.
 */
export function stopSignal(): { received: Promise<StopSignalName>; dispose(): void } {
  const handlers = new Map<StopSignalName, () => void>();
  const dispose = (): void => {
    for (const [signal, handler] of handlers) process.off(signal, handler);
  };
  const received = new Promise<StopSignalName>((resolve) => {
    for (const signal of STOP_SIGNALS) {
      const handler = (): void => {
        dispose();
        for (const again of STOP_SIGNALS) process.once(again, () => process.exit(EXIT.failure));
        resolve(signal);
      };
      handlers.set(signal, handler);
      process.on(signal, handler);
    }
  });
  return { received, dispose };
}

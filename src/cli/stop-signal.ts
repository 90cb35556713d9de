import { EXIT } from './exit-codes.js';

/** The signals that stop a foreground command gracefully. */
const STOP_SIGNALS = ['SIGTERM', 'SIGINT'] as const;

/**
 * stopSignal's `received` resolves at the first SIGTERM or SIGINT. A second one while the command
 * is closing means "now": the process exits at once with code 1.
 */
export function stopSignal(): { received: Promise<void>; dispose(): void } {
  let onSignal: () => void = () => undefined;
  const received = new Promise<void>((resolve) => {
    onSignal = (): void => {
      for (const signal of STOP_SIGNALS) process.off(signal, onSignal);
      for (const signal of STOP_SIGNALS) process.once(signal, () => process.exit(EXIT.failure));
      resolve();
    };
  });
  for (const signal of STOP_SIGNALS) process.on(signal, onSignal);
  return { received, dispose: () => STOP_SIGNALS.forEach((signal) => process.off(signal, onSignal)) };
}

import type { Flags } from './flags.js';
import { portFlag } from './flags.js';

/** The flags of `latch daemon` and `latch start` for the owner console. */
export const CONSOLE_FLAGS = { 'port-console': 'value', 'no-console': 'boolean' } as const;

/**
 * consoleOption reads --port-console and --no-console (docs/decisions.md §25). Without either, the
 * console listens where config.json's console_port says, else on 7724 — except when Variant A's
 * port is 0: whoever asks for free ports (a test, a second daemon) gets a free one here too.
 */
export function consoleOption(flags: Flags, portA: number | undefined): { port?: number } | undefined {
  if (flags['no-console'] === true) return undefined;
  const port = portFlag(flags, 'port-console');
  if (port !== undefined) return { port };
  return portA === 0 ? { port: 0 } : {};
}

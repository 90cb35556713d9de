import { realpathSync } from 'node:fs';
import type { LatchCommand } from './service-files.js';

/**
 * currentLatchCommand is how this very program was started, so the service runs the same Latch:
 * the single binary by itself, or node with its flags (tsx's loader from a checkout) and the script.
 */
export function currentLatchCommand(): LatchCommand {
  if (runningAsSingleBinary()) return { program: process.execPath, args: [] };
  const script = process.argv[1];
  if (script === undefined) throw new Error('cannot tell which script is running');
  return { program: process.execPath, args: [...process.execArgv, realpathSync(script)] };
}

function runningAsSingleBinary(): boolean {
  // getBuiltinModule works in ESM and in the CommonJS bundle alike (import.meta is empty there).
  const getBuiltinModule = (process as { getBuiltinModule?: (id: string) => unknown }).getBuiltinModule;
  const sea = getBuiltinModule?.call(process, 'node:sea') as { isSea?: () => boolean } | undefined;
  return sea?.isSea?.() === true;
}

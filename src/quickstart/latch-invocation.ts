/**
 * How to run this very Latch from another program (an MCP client's configuration, a service):
 * the single binary by itself, or node and the package's `bin/latch.js` — which runs the bundle
 * when it is built and the sources through tsx in a checkout, printing nothing of its own.
 */
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { currentLatchCommand } from '../service/latch-command.js';
import type { LatchCommand } from '../service/service-files.js';

/** latchInvocation returns the program and arguments that run `latch` as it runs now. */
export function latchInvocation(): LatchCommand {
  const current = currentLatchCommand();
  if (current.args.length === 0) return current;
  const script = current.args[current.args.length - 1] as string;
  const root = packageRoot(path.dirname(realpathSync(script)));
  const bin = root === undefined ? undefined : path.join(root, 'bin', 'latch.js');
  return bin !== undefined && existsSync(bin) ? { program: process.execPath, args: [bin] } : current;
}

/** packageRoot finds the nearest folder above start whose package.json is Latch's. */
function packageRoot(start: string): string | undefined {
  for (let folder = start, depth = 0; depth < 8; depth++) {
    const manifest = path.join(folder, 'package.json');
    if (existsSync(manifest)) {
      try {
        if ((JSON.parse(readFileSync(manifest, 'utf8')) as { name?: unknown }).name === 'latch') return folder;
      } catch {
        // Not ours; keep looking upwards.
      }
    }
    const parent = path.dirname(folder);
    if (parent === folder) return undefined;
    folder = parent;
  }
  return undefined;
}

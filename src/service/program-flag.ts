/**
 * `--program PATH` of `latch service install`: the Latch the service runs, when it is not the one
 * running the install (a checkout in /tmp installing the unit for /usr/local/bin/latch, a package's
 * post-install step). Without it the service runs the program the install was run with.
 */
import { accessSync, constants, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import type { LatchCommand } from './service-files.js';
import { currentLatchCommand } from './latch-command.js';

/** ProgramFlagError is a --program that cannot be a service's program. */
export class ProgramFlagError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProgramFlagError';
  }
}

/** serviceCommand is the program --program names (an executable file), else this one. */
export function serviceCommand(program: string | undefined): LatchCommand {
  if (program === undefined) return currentLatchCommand();
  if (!path.isAbsolute(program)) throw new ProgramFlagError(`--program must be an absolute path (${JSON.stringify(program)})`);
  let real: string;
  try {
    real = realpathSync(program);
    if (!statSync(real).isFile()) throw new ProgramFlagError(`--program ${program} is not a file`);
    accessSync(real, constants.X_OK);
  } catch (error) {
    if (error instanceof ProgramFlagError) throw error;
    throw new ProgramFlagError(`--program ${program} is not an executable file (${(error as NodeJS.ErrnoException).code ?? 'error'}): name the installed latch, e.g. /usr/local/bin/latch`);
  }
  // The path as named, not its target: an upgrade that moves the target keeps the unit right.
  return { program, args: [] };
}

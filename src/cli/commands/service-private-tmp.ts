/**
 * Whether a service unit with PrivateTmp=yes could see what it is told to run (issue 37, item 7):
 * systemd gives such a service its own empty /tmp and /var/tmp, so a Latch program or script
 * there (a checkout in /tmp, an unpacked release) is missing when the unit starts.
 */
import { realpathSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LatchCommand } from '../../service/service-files.js';

/** The folders systemd's PrivateTmp=yes replaces with the service's own empty ones. */
const PRIVATE_TMP_ROOTS = ['/tmp', '/var/tmp'];

/**
 * underPrivateTmp reports whether a path lies in /tmp or /var/tmp (its real path, as far as it
 * exists): a unit with PrivateTmp=yes would not see it.
 */
export function underPrivateTmp(target: string): boolean {
  let real = path.resolve(target);
  for (let probe = real; ; probe = path.dirname(probe)) {
    try {
      real = path.join(realpathSync(probe), path.relative(probe, real));
      break;
    } catch {
      if (path.dirname(probe) === probe) break;
    }
  }
  return PRIVATE_TMP_ROOTS.some((root) => real === root || real.startsWith(`${root}/`));
}

/**
 * commandUnderPrivateTmp returns the first file the command names (the program, or an argument
 * that is an absolute path, a file: URL, or `--flag=/path`) that lies under /tmp or /var/tmp, or
 * undefined when none does.
 */
export function commandUnderPrivateTmp(command: LatchCommand): string | undefined {
  for (const word of [command.program, ...command.args]) {
    const file = fileIn(word);
    if (file !== undefined && underPrivateTmp(file)) return file;
  }
  return undefined;
}

function fileIn(word: string): string | undefined {
  if (word.startsWith('file://')) {
    try {
      return fileURLToPath(word);
    } catch {
      return undefined;
    }
  }
  if (path.isAbsolute(word)) return word;
  const equals = word.indexOf('=');
  if (word.startsWith('-') && equals !== -1) return fileIn(word.slice(equals + 1));
  return undefined;
}

/**
 * The resource limits of this process (`ulimit -v`, `ulimit -n`), as Linux reports them in
 * /proc/self/limits. Node has no getrlimit; elsewhere the limits are unknown and callers keep
 * their defaults.
 */
import { readFileSync } from 'node:fs';

/** One limit's soft value: a number of its unit, `unlimited`, or undefined when unknown. */
export type LimitValue = number | 'unlimited' | undefined;

export interface ProcessLimits {
  /** RLIMIT_AS in bytes (`ulimit -v` is in KiB). */
  addressSpaceBytes: LimitValue;
  /** RLIMIT_NOFILE: descriptors this process may hold open. */
  openFiles: LimitValue;
}

/** readProcessLimits returns the soft limits; text is /proc/self/limits' content (tests pass their own). */
export function readProcessLimits(text: string | undefined = procLimitsText()): ProcessLimits {
  return { addressSpaceBytes: softLimit(text, 'Max address space'), openFiles: softLimit(text, 'Max open files') };
}

function procLimitsText(): string | undefined {
  try {
    return readFileSync('/proc/self/limits', 'utf8');
  } catch {
    return undefined;
  }
}

/** softLimit reads the second column of the line that starts with name. */
function softLimit(text: string | undefined, name: string): LimitValue {
  const line = text?.split('\n').find((l) => l.startsWith(name));
  const soft = line?.slice(name.length).trim().split(/\s+/)[0];
  if (soft === 'unlimited') return 'unlimited';
  return soft !== undefined && /^[0-9]{1,15}$/.test(soft) ? Number(soft) : undefined;
}

/**
 * CPU time of benchmark processes, read from /proc: what a request costs the machine, whatever
 * the load around it did to its latency.
 */
import { readFileSync } from 'node:fs';

/** USER_HZ is 100 on Linux: /proc/<pid>/stat counts CPU time in ticks of 10 ms. */
const TICK_MS = 10;

/** cpuMs is the user + system CPU time of each pid so far, in ms (/proc/<pid>/stat, all threads). */
export function cpuMs(pids: readonly number[]): number[] {
  return pids.map((pid) => {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  });
}

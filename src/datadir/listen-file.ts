/**
 * Where the running daemon listens, written into the data directory once it listens and removed
 * when it stops (docs/decisions.md §19), so that `latch` commands started with the same LATCH_HOME
 * find a daemon on non-default ports without LATCH_URL. It holds no secret: the client still asks
 * the daemon to prove itself before it sends a token (daemon-proof.ts). It is a private data file
 * like the others; one that is unsafe, damaged or left by a process that is gone is ignored.
 */
import { unlinkSync } from 'node:fs';
import { writeFileAtomic } from './atomic-file.js';
import { DATA_FILES, dataFilePath } from './home.js';
import { readPrivateFile } from './read-private-file.js';

/** What the daemon listens on; a port is null when that listener is not served. */
export interface ListenRecord {
  pid: number;
  port_a: number | null;
  port_b: number | null;
  started_at: string;
}

const LISTEN_FILE_BYTES_MAX = 512;

/** listenFilePath is `$LATCH_HOME/listen.json`. */
export function listenFilePath(home: string): string {
  return dataFilePath(home, DATA_FILES.listen);
}

/** writeListenFile records where this daemon listens (0600, atomic). */
export function writeListenFile(home: string, record: ListenRecord): void {
  writeFileAtomic(listenFilePath(home), `${JSON.stringify({ v: 1, ...record })}\n`);
}

/** removeListenFile removes the record when it is still this daemon's (another may have started since). */
export function removeListenFile(home: string, record: ListenRecord): void {
  const current = readRecord(home);
  if (current === undefined || current.pid !== record.pid || current.port_a !== record.port_a || current.port_b !== record.port_b) return;
  try {
    unlinkSync(listenFilePath(home));
  } catch {
    // Already gone: nothing to do.
  }
}

/**
 * readListenFile returns where a running daemon of this data directory listens, or undefined when
 * there is no usable record: absent, unsafe, damaged, or written by a process that no longer runs.
 */
export function readListenFile(home: string): ListenRecord | undefined {
  let record: ListenRecord | undefined;
  try {
    record = readRecord(home);
  } catch {
    return undefined;
  }
  return record !== undefined && processRuns(record.pid) ? record : undefined;
}

function readRecord(home: string): ListenRecord | undefined {
  const text = readPrivateFile(listenFilePath(home), LISTEN_FILE_BYTES_MAX);
  if (text === undefined) return undefined;
  let value: Record<string, unknown>;
  try {
    value = JSON.parse(text) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  const port = (x: unknown): x is number | null => x === null || (Number.isInteger(x) && (x as number) > 0 && (x as number) <= 65535);
  const { pid, port_a: portA, port_b: portB, started_at: startedAt } = value;
  if (value['v'] !== 1 || !Number.isSafeInteger(pid) || (pid as number) <= 0 || !port(portA) || !port(portB) || typeof startedAt !== 'string') return undefined;
  return { pid: pid as number, port_a: portA, port_b: portB, started_at: startedAt };
}

/** processRuns reports whether a process exists (one of another user counts: EPERM). */
function processRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

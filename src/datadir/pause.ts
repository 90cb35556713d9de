/**
 * The owner's emergency brake: while `$LATCH_HOME/paused` exists, the daemon signs nothing that
 * authorizes spending or moves money, for anyone (docs/decisions.md §15.6). It is a file so that the brake
 * holds across a restart or a crash, works whether or not the daemon is running, and can be
 * pulled by the owner alone (the data directory is theirs).
 */
import { unlinkSync } from 'node:fs';
import { writeFileAtomic, fsyncDirectory } from './atomic-file.js';
import { DataDirError, shellQuote } from './data-dir-error.js';
import { DATA_FILES, dataFilePath } from './home.js';
import { readPrivateFile } from './read-private-file.js';

/** Since when signing is paused, and the owner's note. */
export interface PauseState {
  since: string;
  reason: string | null;
}

const PAUSE_FILE_BYTES_MAX = 1024;
const REASON_CHARS_MAX = 200;

/** pausePath returns the brake file's path. */
export function pausePath(home: string): string {
  return dataFilePath(home, DATA_FILES.paused);
}

/** pauseSigning pulls the brake (again: a second pause keeps the first one's time). */
export function pauseSigning(home: string, reason: string | undefined, now: Date = new Date()): PauseState {
  const existing = readPause(home);
  if (existing !== undefined) return existing;
  if (reason !== undefined && (reason.length > REASON_CHARS_MAX || /[\p{Cc}\p{Cf}]/u.test(reason))) {
    throw new DataDirError('invalid_value', pausePath(home), `The reason must be at most ${REASON_CHARS_MAX} printable characters`, 'give a shorter --reason');
  }
  const state: PauseState = { since: now.toISOString(), reason: reason ?? null };
  writeFileAtomic(pausePath(home), `${JSON.stringify({ v: 1, ...state })}\n`);
  return state;
}

/** resumeSigning releases the brake; it reports whether it was pulled. */
export function resumeSigning(home: string): boolean {
  try {
    unlinkSync(pausePath(home));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
  fsyncDirectory(home);
  return true;
}

/**
 * readPause returns the brake's state, or undefined when signing is not paused. An unsafe or
 * damaged brake file is an error (the daemon then refuses to sign: it fails closed).
 */
export function readPause(home: string): PauseState | undefined {
  const file = pausePath(home);
  const text = readPrivateFile(file, PAUSE_FILE_BYTES_MAX);
  if (text === undefined) return undefined;
  try {
    const value = JSON.parse(text) as { v?: unknown; since?: unknown; reason?: unknown };
    if (value.v === 1 && typeof value.since === 'string' && !Number.isNaN(Date.parse(value.since)) && (value.reason === null || typeof value.reason === 'string')) {
      return { since: value.since, reason: value.reason };
    }
  } catch {
    // Reported below.
  }
  throw new DataDirError('corrupt', file, 'The pause file is not one Latch wrote', `run latch resume to release the brake, or rm ${shellQuote(file)}`);
}

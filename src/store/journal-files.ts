import { randomBytes } from 'node:crypto';
import { constants, promises as fs } from 'node:fs';
import path from 'node:path';

// O_NOFOLLOW refuses to open through a symbolic link; it does not exist on Windows.
const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;
/** How a new journal, temporary or snapshot is created: never existing before, never through a symbolic link. */
export const CREATE_NEW = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | O_NOFOLLOW;
/** How a journal is opened for appending: never through a symbolic link. */
export const OPEN_APPEND = constants.O_RDWR | constants.O_APPEND | O_NOFOLLOW;
/** The mode of every journal file and of its compaction temporaries: owner read and write only. */
export const JOURNAL_FILE_MODE = 0o600;

/**
 * compactionTemporaryPath names the file a compaction writes before renaming it over the journal:
 * `.<journal name>.<16 hex>.tmp` in the same directory, the data directory's temporary pattern.
 */
export function compactionTemporaryPath(journalPath: string): string {
  return path.join(path.dirname(journalPath), `.${path.basename(journalPath)}.${randomBytes(8).toString('hex')}.tmp`);
}

/**
 * removeAbandonedTemporaries deletes compaction temporaries of this journal that a process
 * killed mid-compaction left behind. The journal itself is whole either way, because the rename
 * that would have replaced it is atomic; the temporary is only litter. Returns how many it removed.
 */
export async function removeAbandonedTemporaries(journalPath: string): Promise<number> {
  const prefix = `.${path.basename(journalPath)}.`;
  const pattern = /^[0-9a-f]{16}\.tmp$/;
  const directory = path.dirname(journalPath);
  let removed = 0;
  for (const name of await fs.readdir(directory)) {
    if (!name.startsWith(prefix) || !pattern.test(name.slice(prefix.length))) continue;
    const file = path.join(directory, name);
    const stats = await fs.lstat(file).catch(() => undefined);
    if (stats === undefined || !stats.isFile()) continue;
    await fs.unlink(file).catch(() => undefined);
    removed += 1;
  }
  return removed;
}

/** createIfMissing creates an empty journal (O_EXCL, 0600, fsynced) and reports whether it did. */
export async function createIfMissing(journalPath: string): Promise<boolean> {
  try {
    const handle = await fs.open(journalPath, CREATE_NEW, JOURNAL_FILE_MODE);
    await exactMode(handle);
    await handle.sync();
    await handle.close();
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

/**
 * exactMode gives a file just created its 0600 in full: a umask such as 0277 would leave it 0400,
 * and the next start could not open it for appending (docs/decisions.md §24.8). The file is new
 * and only ours.
 */
async function exactMode(handle: fs.FileHandle): Promise<void> {
  if (process.platform !== 'win32') await handle.chmod(JOURNAL_FILE_MODE);
}

/**
 * writeTemporary writes chunks, in order, to a new temporary file beside target (O_EXCL, 0600)
 * and fsyncs it, for a compaction or a snapshot to rename over target. On failure the temporary
 * is removed. Chunks spare a large file one concatenation in memory.
 */
export async function writeTemporary(target: string, chunks: readonly Uint8Array[]): Promise<string> {
  const temporary = compactionTemporaryPath(target);
  const handle = await fs.open(temporary, CREATE_NEW, JOURNAL_FILE_MODE);
  try {
    await exactMode(handle);
    for (const chunk of chunks) {
      for (let written = 0; written < chunk.byteLength; ) written += (await handle.write(chunk, written, chunk.byteLength - written)).bytesWritten;
    }
    await handle.sync();
  } catch (error) {
    await handle.close().catch(() => undefined);
    await fs.unlink(temporary).catch(() => undefined);
    throw error;
  }
  await handle.close();
  return temporary;
}

/**
 * renameOver renames a written temporary over the journal; rename is atomic, so a crash leaves
 * the old journal or the new one under its name, never a mix. On failure the temporary is removed
 * and the journal is as it was.
 */
export async function renameOver(temporary: string, journalPath: string): Promise<void> {
  try {
    await fs.rename(temporary, journalPath);
  } catch (error) {
    await fs.unlink(temporary).catch(() => undefined);
    throw error;
  }
}

/** syncDirectory makes a create or rename in directory durable. */
export async function syncDirectory(directory: string): Promise<void> {
  // A new file's directory entry is durable only once the directory itself is fsynced.
  const handle = await fs.open(directory, constants.O_RDONLY);
  try {
    await handle.sync();
  } catch (error) {
    // Some platforms refuse fsync on a directory; the file's own fsync is then the best there is.
    if (!['EINVAL', 'EPERM', 'EISDIR'].includes((error as NodeJS.ErrnoException).code ?? '')) throw error;
  } finally {
    await handle.close();
  }
}

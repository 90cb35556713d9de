import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import path from 'node:path';
import { nodeFileSystem, type FileHandlePort, type FileSystemPort } from './file-system.js';

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
export async function removeAbandonedTemporaries(journalPath: string, files: FileSystemPort = nodeFileSystem): Promise<number> {
  const prefix = `.${path.basename(journalPath)}.`;
  const pattern = /^[0-9a-f]{16}\.tmp$/;
  const directory = path.dirname(journalPath);
  let removed = 0;
  for (const name of await files.readdir(directory)) {
    if (!name.startsWith(prefix) || !pattern.test(name.slice(prefix.length))) continue;
    const file = path.join(directory, name);
    if (!(await files.isRegularFile(file))) continue;
    await files.unlink(file).catch(() => undefined);
    removed += 1;
  }
  return removed;
}

/** createIfMissing creates an empty journal (O_EXCL, 0600, fsynced) and reports whether it did. */
export async function createIfMissing(journalPath: string, files: FileSystemPort = nodeFileSystem): Promise<boolean> {
  try {
    const handle = await files.open(journalPath, CREATE_NEW, JOURNAL_FILE_MODE);
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
async function exactMode(handle: FileHandlePort): Promise<void> {
  if (process.platform !== 'win32') await handle.chmod(JOURNAL_FILE_MODE);
}

/**
 * writeTemporary writes chunks, in order, to a new temporary file beside target (O_EXCL, 0600)
 * and fsyncs it, for a compaction or a snapshot to rename over target. On failure the temporary
 * is removed. Chunks spare a large file one concatenation in memory.
 */
export async function writeTemporary(target: string, chunks: readonly Uint8Array[], files: FileSystemPort = nodeFileSystem): Promise<string> {
  const temporary = compactionTemporaryPath(target);
  const handle = await files.open(temporary, CREATE_NEW, JOURNAL_FILE_MODE);
  try {
    await exactMode(handle);
    for (const chunk of chunks) {
      for (let written = 0; written < chunk.byteLength; ) written += (await handle.write(chunk, written, chunk.byteLength - written)).bytesWritten;
    }
    await handle.sync();
  } catch (error) {
    await handle.close().catch(() => undefined);
    await files.unlink(temporary).catch(() => undefined);
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
export async function renameOver(temporary: string, journalPath: string, files: FileSystemPort = nodeFileSystem): Promise<void> {
  try {
    await files.rename(temporary, journalPath);
  } catch (error) {
    await files.unlink(temporary).catch(() => undefined);
    throw error;
  }
}

/** syncDirectory makes a create or rename in directory durable. */
export function syncDirectory(directory: string, files: FileSystemPort = nodeFileSystem): Promise<void> {
  return files.syncDirectory(directory);
}

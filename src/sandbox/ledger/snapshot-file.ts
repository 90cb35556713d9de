import { sha256 } from '@noble/hashes/sha2.js';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { crc32 } from '../../store/crc32.js';
import { removeAbandonedTemporaries, renameOver, syncDirectory, writeTemporary } from '../../store/journal-files.js';

/**
 * A snapshot file: one checksummed, atomically replaced file holding a state and what it covers.
 *
 *     LTS2 <CRC-32 hex of everything after this line> <bytes after this line>\n
 *     <meta JSON>\n
 *     <body>
 *
 * The checksum covers the meta as well as the body, so no damage anywhere is read as a smaller or
 * older snapshot. It is a CRC-32, as for journal frames (docs/decisions.md §16.5): a snapshot is a
 * copy of state the journal also holds, guarded against damage, not edits, and a damaged one is
 * ignored for a full replay; hashing a large snapshot with noble's SHA-256 was a third of the
 * sandbox's start. Snapshots of earlier versions (`LTS1`, SHA-256) are still read. It is written beside its name (O_EXCL, 0600), fsynced, renamed over the old one
 * and the directory fsynced, so a crash leaves the old snapshot or the new one, never a mix.
 */
const MAGIC = 'LTS2';
/** The first line is short; a longer one is not a snapshot. */
const FIRST_LINE_BYTES_MAX = 128;

/** SnapshotDamagedError means a snapshot file is there but cannot be trusted: its owner ignores it. */
export class SnapshotDamagedError extends Error {
  constructor(
    readonly snapshotPath: string,
    readonly reason: string,
  ) {
    super(`The snapshot ${snapshotPath} is damaged (${reason})`);
    this.name = 'SnapshotDamagedError';
  }
}

/** writeSnapshotFile atomically replaces snapshotPath with meta and the body chunks, durable when it resolves. */
export async function writeSnapshotFile(snapshotPath: string, meta: unknown, body: readonly Uint8Array[]): Promise<void> {
  const parts = [Buffer.from(`${JSON.stringify(meta)}\n`), ...body];
  let checksum = 0;
  let bytes = 0;
  for (const part of parts) {
    checksum = crc32(part, checksum);
    bytes += part.byteLength;
  }
  const first = Buffer.from(`${MAGIC} ${checksum.toString(16).padStart(8, '0')} ${bytes}\n`);
  const temporary = await writeTemporary(snapshotPath, [first, ...parts]);
  await renameOver(temporary, snapshotPath);
  await syncDirectory(path.dirname(snapshotPath));
}

/**
 * readSnapshotFile returns the snapshot's meta and body, undefined when there is none, and throws
 * SnapshotDamagedError when its checksum, length or meta do not hold. It also removes temporaries
 * that a crash while writing one left behind.
 */
export async function readSnapshotFile(snapshotPath: string): Promise<{ meta: unknown; body: Buffer } | undefined> {
  await removeAbandonedTemporaries(snapshotPath);
  let bytes: Buffer;
  try {
    bytes = await fs.readFile(snapshotPath);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const newline = bytes.indexOf(0x0a);
  if (newline === -1 || newline > FIRST_LINE_BYTES_MAX) throw new SnapshotDamagedError(snapshotPath, 'no first line');
  const match = /^(LTS2 [0-9a-f]{8}|LTS1 [0-9a-f]{64}) ([0-9]{1,15})$/.exec(bytes.subarray(0, newline).toString('latin1'));
  if (match === null) throw new SnapshotDamagedError(snapshotPath, 'first line');
  const rest = bytes.subarray(newline + 1);
  if (rest.length !== Number(match[2])) throw new SnapshotDamagedError(snapshotPath, 'length');
  const [magic, expected] = (match[1] as string).split(' ') as [string, string];
  const actual = magic === 'LTS2' ? crc32(rest).toString(16).padStart(8, '0') : Buffer.from(sha256(rest)).toString('hex');
  if (actual !== expected) throw new SnapshotDamagedError(snapshotPath, 'checksum');
  const metaEnd = rest.indexOf(0x0a);
  if (metaEnd === -1) throw new SnapshotDamagedError(snapshotPath, 'no meta');
  let meta: unknown;
  try {
    meta = JSON.parse(rest.subarray(0, metaEnd).toString('utf8'));
  } catch {
    throw new SnapshotDamagedError(snapshotPath, 'meta');
  }
  return { meta, body: rest.subarray(metaEnd + 1) };
}

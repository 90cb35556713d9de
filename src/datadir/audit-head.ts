import { syncFiles } from '../store/file-system.js';
import { constants } from 'node:fs';
import { writeFileAtomic } from './atomic-file.js';
import { GENESIS_HASH, lineHash } from './audit-lines.js';

/*
 * audit.head is two fixed-size slots, each a whole head record with a commit number and a
 * checksum. A commit writes the slot its number selects (commit mod 2) in place, with one pwrite
 * and one fdatasync: no temporary file, no rename, no directory fsync. A reader takes the valid
 * slot with the higher commit number, so a write torn by a crash leaves the other slot, the
 * previous head, in charge. The file is created (or an old one-record head replaced) atomically
 * once; after that its size never changes, which is why fdatasync is enough.
 *
 * Each slot is one line of text, `<commit> <head JSON> <sha256 of the two>` padded with spaces,
 * so the file stays readable with cat. The old format, one JSON record, is still read; the next
 * commit replaces it with slots.
 */

/**
 * audit.head: where the log ended after the last completed append, and, while a group commit is
 * being written, how many lines it may add after that one.
 */
export interface AuditHead {
  seq: number;
  hash: string;
  /** Present only while a commit of more than one line is in progress (or was, at a crash). */
  pending?: number;
}

/** A head as read from the file: the record, its commit number, and whether the file has slots. */
export interface AuditHeadState {
  head: AuditHead;
  commit: number;
  slotted: boolean;
}

/** The most entries one commit writes; more wait for the next commit. */
export const AUDIT_BATCH_ENTRIES_MAX = 64;
export const HEAD_SLOT_BYTES = 256;
/** The size of a slotted audit.head, and the most any head file may be. */
export const HEAD_FILE_BYTES = 2 * HEAD_SLOT_BYTES;
const HASH_SHAPE = /^[0-9a-f]{64}$/;
const fdatasyncAsync = (fd: number) => syncFiles().fdatasync(fd);

/** parseHead validates one head record (the JSON of a slot, or the whole old-format file). */
export function parseHead(text: string): AuditHead | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const { seq, hash, pending } = value as Record<string, unknown>;
  if (!Number.isSafeInteger(seq) || (seq as number) < 0 || typeof hash !== 'string' || !HASH_SHAPE.test(hash)) return undefined;
  if (pending === undefined) return (seq as number) >= 1 ? { seq: seq as number, hash } : undefined;
  if (!Number.isSafeInteger(pending) || (pending as number) < 1 || (pending as number) > AUDIT_BATCH_ENTRIES_MAX) return undefined;
  // A commit announced on an empty log names the start of the chain.
  if (seq === 0 && hash !== GENESIS_HASH) return undefined;
  return { seq: seq as number, hash, pending: pending as number };
}

/** parseHeadFile reads either format of audit.head's text; undefined when no valid head is in it. */
export function parseHeadFile(text: string): AuditHeadState | undefined {
  if (text.length !== HEAD_FILE_BYTES) {
    const head = parseHead(text);
    return head === undefined ? undefined : { head, commit: 0, slotted: false };
  }
  const slots = [parseSlot(text.slice(0, HEAD_SLOT_BYTES)), parseSlot(text.slice(HEAD_SLOT_BYTES))];
  let best: AuditHeadState | undefined;
  for (const slot of slots) if (slot !== undefined && (best === undefined || slot.commit > best.commit)) best = slot;
  return best;
}

function parseSlot(text: string): AuditHeadState | undefined {
  if (!text.endsWith('\n')) return undefined;
  const fields = text.trimEnd().split(' ');
  if (fields.length !== 3) return undefined;
  const [commitText, json, checksum] = fields as [string, string, string];
  if (checksum !== lineHash(Buffer.from(`${commitText} ${json}`, 'utf8'))) return undefined;
  const commit = Number(commitText);
  if (!/^[0-9]{1,15}$/.test(commitText) || !Number.isSafeInteger(commit)) return undefined;
  const head = parseHead(json);
  return head === undefined ? undefined : { head, commit, slotted: true };
}

/** slotText renders head as commit's slot, exactly HEAD_SLOT_BYTES long. */
function slotText(head: AuditHead, commit: number): string {
  const body = `${commit} ${JSON.stringify(head)}`;
  const text = `${body} ${lineHash(Buffer.from(body, 'utf8'))}`;
  if (text.length > HEAD_SLOT_BYTES - 1) throw new Error('an audit.head slot overflowed');
  return `${text.padEnd(HEAD_SLOT_BYTES - 1, ' ')}\n`;
}

/**
 * A planned head write: in place (one slot at offset) when the file already has slots, or a
 * whole new file when there is none yet or it has the old format.
 */
type HeadWrite = { kind: 'slot'; offset: number; bytes: Buffer } | { kind: 'file'; bytes: Buffer };

function planHeadWrite(previous: AuditHeadState | undefined, head: AuditHead): HeadWrite {
  const commit = (previous?.commit ?? 0) + 1;
  const slot = Buffer.from(slotText(head, commit), 'utf8');
  const offset = (commit % 2) * HEAD_SLOT_BYTES;
  if (previous?.slotted === true) return { kind: 'slot', offset, bytes: slot };
  // The other slot starts empty (blank, so invalid); the next commit fills it.
  const file = Buffer.alloc(HEAD_FILE_BYTES, ' ');
  file[HEAD_SLOT_BYTES - 1] = 0x0a;
  file[HEAD_FILE_BYTES - 1] = 0x0a;
  slot.copy(file, offset);
  return { kind: 'file', bytes: file };
}

/**
 * openSlots opens the slotted head for writing in place, refusing a symbolic link and anything
 * but a regular file of exactly the slotted size (then the caller's checks have been bypassed).
 */
function openSlots(target: string): number {
  const fd = syncFiles().openSync(target, constants.O_WRONLY | (constants.O_NOFOLLOW ?? 0));
  try {
    const stats = syncFiles().fstatSync(fd);
    if (!stats.isFile() || stats.size !== HEAD_FILE_BYTES) throw new Error('audit.head changed shape while it was being written');
    return fd;
  } catch (error) {
    syncFiles().closeSync(fd);
    throw error;
  }
}

/** writeHeadSync records head in target after previous (what was read from it), durably. */
export function writeHeadSync(target: string, previous: AuditHeadState | undefined, head: AuditHead): AuditHeadState {
  const plan = planHeadWrite(previous, head);
  if (plan.kind === 'file') {
    writeFileAtomic(target, plan.bytes);
  } else {
    const fd = openSlots(target);
    try {
      if (syncFiles().writeSync(fd, plan.bytes, 0, plan.bytes.length, plan.offset) !== plan.bytes.length) throw new Error('audit.head slot write was short');
      syncFiles().fdatasyncSync(fd);
    } finally {
      syncFiles().closeSync(fd);
    }
  }
  return { head, commit: (previous?.commit ?? 0) + 1, slotted: true };
}

/** writeHead is writeHeadSync that waits for the disk off the event loop (but for the one-time file creation). */
export async function writeHead(target: string, previous: AuditHeadState | undefined, head: AuditHead): Promise<AuditHeadState> {
  const plan = planHeadWrite(previous, head);
  if (plan.kind === 'file') return writeHeadSync(target, previous, head);
  const fd = openSlots(target);
  try {
    if (syncFiles().writeSync(fd, plan.bytes, 0, plan.bytes.length, plan.offset) !== plan.bytes.length) throw new Error('audit.head slot write was short');
    await fdatasyncAsync(fd);
  } finally {
    syncFiles().closeSync(fd);
  }
  return { head, commit: (previous?.commit ?? 0) + 1, slotted: true };
}

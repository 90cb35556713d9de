import { readSync } from 'node:fs';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';

/** One line of audit.log as stored: its exact bytes (without the newline) and where it ends. */
export interface AuditLine {
  /** 1-based line number. */
  number: number;
  /** The line's bytes, without the trailing newline; empty when tooLong. */
  bytes: Buffer;
  /** Whether the line ended with a newline (only the last line of a torn write does not). */
  complete: boolean;
  /** Whether the line exceeded the limit; its bytes are then not kept. */
  tooLong: boolean;
}

/** The longest line audit.log may hold; entries are bounded well below this. */
export const AUDIT_LINE_BYTES_MAX = 16 * 1024;

/** The `prev` of the first line: 64 zeros. */
export const GENESIS_HASH = '0'.repeat(64);

const CHUNK_BYTES = 64 * 1024;
const NEWLINE = 0x0a;

/**
 * lineHash is the SHA-256 (lower-case hex) of a line's exact bytes, without its newline. Hashing
 * goes through @noble/hashes, as the design card requires of every hash the daemon relies on
 * (node:crypto's OpenSSL SHA-256 is faster, and docs/performance.md measures what that costs
 * `latch audit verify`).
 */
export function lineHash(bytes: Uint8Array): string {
  return bytesToHex(sha256(bytes));
}

/**
 * readAuditLines yields the lines of an open audit.log from the start, reading fixed-size chunks
 * so that memory stays bounded however long the log grows.
 */
export function* readAuditLines(fd: number): Generator<AuditLine> {
  const chunk = Buffer.alloc(CHUNK_BYTES);
  let pieces: Buffer[] = [];
  let pending = 0;
  let tooLong = false;
  let number = 0;
  let position = 0;
  for (;;) {
    const read = readSync(fd, chunk, 0, CHUNK_BYTES, position);
    if (read === 0) break;
    position += read;
    let start = 0;
    for (let index = chunk.indexOf(NEWLINE, start); index !== -1 && index < read; index = chunk.indexOf(NEWLINE, start)) {
      ({ pieces, pending, tooLong } = keep(pieces, pending, tooLong, chunk.subarray(start, index)));
      number += 1;
      yield { number, bytes: tooLong ? Buffer.alloc(0) : joined(pieces), complete: true, tooLong };
      pieces = [];
      pending = 0;
      tooLong = false;
      start = index + 1;
    }
    ({ pieces, pending, tooLong } = keep(pieces, pending, tooLong, chunk.subarray(start, read)));
  }
  if (pending > 0 || tooLong) {
    number += 1;
    yield { number, bytes: tooLong ? Buffer.alloc(0) : Buffer.concat(pieces), complete: false, tooLong };
  }
}

/** joined returns a line's pieces as one buffer; a line read in one piece is already one (a copy). */
function joined(pieces: Buffer[]): Buffer {
  return pieces.length === 1 ? (pieces[0] as Buffer) : Buffer.concat(pieces);
}

function keep(pieces: Buffer[], pending: number, tooLong: boolean, part: Buffer): { pieces: Buffer[]; pending: number; tooLong: boolean } {
  if (tooLong || part.length === 0) return { pieces, pending, tooLong };
  if (pending + part.length > AUDIT_LINE_BYTES_MAX) return { pieces: [], pending: 0, tooLong: true };
  // The chunk buffer is reused for the next read, so the part is copied.
  return { pieces: [...pieces, Buffer.from(part)], pending: pending + part.length, tooLong };
}

import { sha256 } from '@noble/hashes/sha2.js';
import { crc32 } from './crc32.js';

/**
 * The journal's framing: every record is `magic (4) | length (4, big-endian) | checksum (32) |
 * payload`. The checksum tells a torn or overwritten record from a good one; the magic lets the
 * reader look past a damaged record to see whether good records follow it.
 *
 * Two kinds of frame are read (docs/decisions.md §16.5): `LTJ2`, which Latch writes, whose
 * checksum field is the CRC-32 of the payload followed by 28 zero bytes; and `LTJ1`, written by
 * earlier versions, whose checksum field is the payload's SHA-256. A frame's checksum detects a
 * torn write or damage on disk, not a deliberate edit (whoever can write the file can recompute
 * either), and a CRC-32 does that at a fraction of the cost of a SHA-256 in JavaScript, which is
 * most of a long journal's replay at start. A journal may hold both kinds: an old file keeps its
 * frames until a compaction rewrites them.
 */
export const FRAME_MAGIC = Buffer.from('LTJ2', 'ascii');
/** The magic of frames written by earlier versions (SHA-256 checksums). */
export const FRAME_MAGIC_SHA256 = Buffer.from('LTJ1', 'ascii');
export const FRAME_HEADER_BYTES = 4 + 4 + 32;
/** No record is larger than this; a larger length field is damage, not data. */
export const FRAME_PAYLOAD_BYTES_MAX = 16 * 1024 * 1024;

/** checksumField is the checksum field of the frame at offset: what names its payload (a snapshot keeps it). */
export function checksumField(bytes: Buffer, offset = 0): Buffer {
  return bytes.subarray(offset + 8, offset + FRAME_HEADER_BYTES);
}

/** encodeFrame wraps payload bytes in a frame (an `LTJ2` frame, with a CRC-32). */
export function encodeFrame(payload: Uint8Array): Buffer {
  if (payload.byteLength > FRAME_PAYLOAD_BYTES_MAX) throw new Error('journal record too large');
  const header = Buffer.alloc(FRAME_HEADER_BYTES);
  FRAME_MAGIC.copy(header, 0);
  header.writeUInt32BE(payload.byteLength, 4);
  header.writeUInt32BE(crc32(payload), 8);
  return Buffer.concat([header, payload]);
}

/** decodeFrameAt returns the payload and end offset of a whole, intact frame at offset, or undefined. */
export function decodeFrameAt(bytes: Buffer, offset: number): { payload: Buffer; end: number } | undefined {
  if (offset + FRAME_HEADER_BYTES > bytes.length) return undefined;
  const magic = bytes.subarray(offset, offset + 4);
  const crcFrame = magic.equals(FRAME_MAGIC);
  if (!crcFrame && !magic.equals(FRAME_MAGIC_SHA256)) return undefined;
  const length = bytes.readUInt32BE(offset + 4);
  if (length > FRAME_PAYLOAD_BYTES_MAX) return undefined;
  const start = offset + FRAME_HEADER_BYTES;
  const end = start + length;
  if (end > bytes.length) return undefined;
  const payload = bytes.subarray(start, end);
  const checksum = checksumField(bytes, offset);
  const intact = crcFrame ? checksum.readUInt32BE(0) === crc32(payload) && checksum.subarray(4).every((byte) => byte === 0) : Buffer.from(sha256(payload)).equals(checksum);
  return intact ? { payload, end } : undefined;
}

/** intactFrameAfter reports whether any intact frame, of either kind, starts after offset. */
export function intactFrameAfter(bytes: Buffer, offset: number): boolean {
  for (const magic of [FRAME_MAGIC, FRAME_MAGIC_SHA256]) {
    let at = bytes.indexOf(magic, offset + 1);
    while (at !== -1) {
      if (decodeFrameAt(bytes, at) !== undefined) return true;
      at = bytes.indexOf(magic, at + 1);
    }
  }
  return false;
}

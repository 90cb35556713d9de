import { sha256 } from '@noble/hashes/sha2.js';

/**
 * The journal's framing: every record is `magic (4) | length (4, big-endian) | SHA-256 of the
 * payload (32) | payload`. The checksum tells a torn or overwritten record from a good one; the
 * magic lets the reader look past a damaged record to see whether good records follow it.
 */
export const FRAME_MAGIC = Buffer.from('LTJ1', 'ascii');
export const FRAME_HEADER_BYTES = 4 + 4 + 32;
/** No record is larger than this; a larger length field is damage, not data. */
export const FRAME_PAYLOAD_BYTES_MAX = 16 * 1024 * 1024;

/** encodeFrame wraps payload bytes in a frame. */
export function encodeFrame(payload: Uint8Array): Buffer {
  if (payload.byteLength > FRAME_PAYLOAD_BYTES_MAX) throw new Error('journal record too large');
  const header = Buffer.alloc(FRAME_HEADER_BYTES);
  FRAME_MAGIC.copy(header, 0);
  header.writeUInt32BE(payload.byteLength, 4);
  Buffer.from(sha256(payload)).copy(header, 8);
  return Buffer.concat([header, payload]);
}

/** decodeFrameAt returns the payload and end offset of a whole, intact frame at offset, or undefined. */
export function decodeFrameAt(bytes: Buffer, offset: number): { payload: Buffer; end: number } | undefined {
  if (offset + FRAME_HEADER_BYTES > bytes.length) return undefined;
  if (!bytes.subarray(offset, offset + 4).equals(FRAME_MAGIC)) return undefined;
  const length = bytes.readUInt32BE(offset + 4);
  if (length > FRAME_PAYLOAD_BYTES_MAX) return undefined;
  const start = offset + FRAME_HEADER_BYTES;
  const end = start + length;
  if (end > bytes.length) return undefined;
  const payload = bytes.subarray(start, end);
  const checksum = bytes.subarray(offset + 8, start);
  if (!Buffer.from(sha256(payload)).equals(checksum)) return undefined;
  return { payload, end };
}

/** intactFrameAfter reports whether any intact frame starts after offset. */
export function intactFrameAfter(bytes: Buffer, offset: number): boolean {
  let at = bytes.indexOf(FRAME_MAGIC, offset + 1);
  while (at !== -1) {
    if (decodeFrameAt(bytes, at) !== undefined) return true;
    at = bytes.indexOf(FRAME_MAGIC, at + 1);
  }
  return false;
}

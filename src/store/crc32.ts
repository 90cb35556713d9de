/**
 * CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320, as zlib and PNG compute it): the checksum
 * of journal frames and snapshot files, which detects torn writes and disk damage, not deliberate
 * edits (docs/decisions.md §16.5).
 */
const CRC_TABLE = (() => {
  const table = new Int32Array(256);
  for (let n = 0; n < 256; n += 1) {
    let c = n;
    for (let k = 0; k < 8; k += 1) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c;
  }
  return table;
})();

/**
 * crc32 is the CRC-32 of bytes; given the CRC-32 of what came before as `previous`, it continues
 * it, so crc32(b, crc32(a)) is the CRC-32 of a followed by b.
 */
export function crc32(bytes: Uint8Array, previous = 0): number {
  let crc = ~previous;
  for (let index = 0; index < bytes.length; index += 1) crc = (CRC_TABLE[(crc ^ (bytes[index] as number)) & 0xff] as number) ^ (crc >>> 8);
  return ~crc >>> 0;
}

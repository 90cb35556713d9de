/**
 * A bounded CBOR decoder (RFC 8949) for the two WebAuthn structures the daemon reads: the
 * attestation object and the COSE public key inside authenticator data. It takes only what those
 * need — unsigned and negative integers, byte and text strings, arrays, maps, false/true/null —
 * with definite lengths, and refuses everything else (tags, floats, indefinite lengths), so a
 * hostile authenticator response cannot make it allocate or recurse without limit.
 */
export type CborValue = number | Uint8Array | string | CborValue[] | Map<CborValue, CborValue> | boolean | null;

/** Nesting deeper than this is refused: a COSE key is two levels deep, an attestation object three. */
const DEPTH_MAX = 8;
/** No WebAuthn structure the daemon reads has more members than this in one array or map. */
const ITEMS_MAX = 64;

export class CborError extends Error {
  constructor(reason: string) {
    super(`CBOR: ${reason}`);
    this.name = 'CborError';
  }
}

/** decodeCborPrefix decodes one item at the start of bytes and reports how many bytes it used. */
export function decodeCborPrefix(bytes: Uint8Array): { value: CborValue; length: number } {
  const reader = { bytes, offset: 0 };
  const value = readItem(reader, 0);
  return { value, length: reader.offset };
}

/** decodeCbor decodes exactly one item that fills bytes; trailing bytes are an error. */
export function decodeCbor(bytes: Uint8Array): CborValue {
  const { value, length } = decodeCborPrefix(bytes);
  if (length !== bytes.length) throw new CborError('trailing bytes after the item');
  return value;
}

interface Reader {
  readonly bytes: Uint8Array;
  offset: number;
}

function take(reader: Reader, count: number): Uint8Array {
  if (count > reader.bytes.length - reader.offset) throw new CborError('truncated');
  const slice = reader.bytes.subarray(reader.offset, reader.offset + count);
  reader.offset += count;
  return slice;
}

function readArgument(reader: Reader, info: number): number {
  if (info < 24) return info;
  const widths: Record<number, number> = { 24: 1, 25: 2, 26: 4, 27: 8 };
  const width = widths[info];
  if (width === undefined) throw new CborError('indefinite or reserved length');
  let value = 0;
  for (const byte of take(reader, width)) value = value * 256 + byte;
  if (!Number.isSafeInteger(value)) throw new CborError('integer too large');
  return value;
}

function readItem(reader: Reader, depth: number): CborValue {
  if (depth > DEPTH_MAX) throw new CborError('nested too deeply');
  const initial = take(reader, 1)[0] ?? 0;
  const major = initial >> 5;
  const info = initial & 0x1f;
  if (major === 7) return readSimple(info);
  const argument = readArgument(reader, info);
  switch (major) {
    case 0:
      return argument;
    case 1:
      return -1 - argument;
    case 2:
      return Uint8Array.from(take(reader, argument));
    case 3:
      return new TextDecoder('utf-8', { fatal: true }).decode(take(reader, argument));
    case 4:
      return readArray(reader, argument, depth);
    case 5:
      return readMap(reader, argument, depth);
    default:
      throw new CborError('tags are not accepted');
  }
}

function readSimple(info: number): CborValue {
  if (info === 20) return false;
  if (info === 21) return true;
  if (info === 22) return null;
  throw new CborError('floats and other simple values are not accepted');
}

function readArray(reader: Reader, count: number, depth: number): CborValue[] {
  if (count > ITEMS_MAX) throw new CborError('array too long');
  const items: CborValue[] = [];
  for (let index = 0; index < count; index += 1) items.push(readItem(reader, depth + 1));
  return items;
}

function readMap(reader: Reader, count: number, depth: number): Map<CborValue, CborValue> {
  if (count > ITEMS_MAX) throw new CborError('map too long');
  const map = new Map<CborValue, CborValue>();
  for (let index = 0; index < count; index += 1) {
    const key = readItem(reader, depth + 1);
    if (typeof key !== 'number' && typeof key !== 'string') throw new CborError('map keys must be integers or text');
    if (map.has(key)) throw new CborError('duplicate map key');
    map.set(key, readItem(reader, depth + 1));
  }
  return map;
}

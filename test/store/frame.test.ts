/**
 * The journal's two kinds of frame: `LTJ2` (CRC-32), which Latch writes, and `LTJ1` (SHA-256),
 * which earlier versions wrote and every journal on disk may still hold. Both must read back, and
 * damage to either must be seen — at the tail (a torn write: dropped) and before it (refused).
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { crc32 } from '../../src/store/crc32.js';
import { decodeFrameAt, encodeFrame, FRAME_HEADER_BYTES, intactFrameAfter } from '../../src/store/frame.js';
import { Journal, JournalCorruptError } from '../../src/store/journal.js';

/** oldFrame builds an `LTJ1` frame as earlier versions wrote it, independently of the code under test. */
function oldFrame(text: string): Buffer {
  const payload = Buffer.from(text, 'utf8');
  const header = Buffer.alloc(FRAME_HEADER_BYTES);
  header.write('LTJ1', 0, 'ascii');
  header.writeUInt32BE(payload.length, 4);
  createHash('sha256').update(payload).digest().copy(header, 8);
  return Buffer.concat([header, payload]);
}

test('crc32 is the CRC-32 of zlib and PNG (check values)', () => {
  assert.equal(crc32(Buffer.from('123456789', 'ascii')), 0xcbf43926);
  assert.equal(crc32(new Uint8Array(0)), 0);
  assert.equal(crc32(Buffer.from('The quick brown fox jumps over the lazy dog', 'ascii')), 0x414fa339);
});

test('an LTJ2 frame: magic, length, CRC-32 and 28 zero bytes, then the payload; it decodes to the payload', () => {
  const payload = Buffer.from('{"type":"note","n":1}');
  const frame = encodeFrame(payload);
  assert.equal(frame.subarray(0, 4).toString('ascii'), 'LTJ2');
  assert.equal(frame.readUInt32BE(4), payload.length);
  assert.equal(frame.readUInt32BE(8), crc32(payload));
  assert.ok(frame.subarray(12, FRAME_HEADER_BYTES).every((byte) => byte === 0));
  assert.deepEqual(decodeFrameAt(frame, 0), { payload, end: frame.length });
});

test('a damaged frame of either kind does not decode', () => {
  const damages: Array<[string, (frame: Buffer) => void]> = [
    ['a payload byte flipped', (frame) => (frame[frame.length - 2] = (frame[frame.length - 2] as number) ^ 0x01)],
    ['a checksum byte flipped', (frame) => (frame[9] = (frame[9] as number) ^ 0x80)],
    ['the last checksum byte set', (frame) => (frame[FRAME_HEADER_BYTES - 1] = 1)],
    ['the length one longer', (frame) => frame.writeUInt32BE(frame.readUInt32BE(4) + 1, 4)],
    ['the magic changed', (frame) => (frame[3] = 0x33)],
  ];
  for (const [kind, make] of [['LTJ2', () => encodeFrame(Buffer.from('{"seq":7,"x":"abc"}'))], ['LTJ1', () => oldFrame('{"seq":7,"x":"abc"}')]] as const) {
    assert.ok(decodeFrameAt(make(), 0) !== undefined, `${kind} intact`);
    for (const [name, damage] of damages) {
      const frame = make();
      damage(frame);
      assert.equal(decodeFrameAt(Buffer.concat([frame, Buffer.alloc(1)]), 0), undefined, `${kind}: ${name}`);
    }
  }
});

test('a journal of old frames followed by new ones reads whole; damage in an old frame before good ones is refused; a torn new tail is dropped', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'latch-frame-'));
  try {
    const file = path.join(dir, 'journal');
    writeFileSync(file, Buffer.concat([oldFrame('{"seq":1}'), oldFrame('{"seq":2}')]), { mode: 0o600 });
    const first = await Journal.open(file);
    assert.deepEqual(first.contents.payloads.map(String), ['{"seq":1}', '{"seq":2}']);
    await first.journal.append(Buffer.from('{"seq":3}'));
    await first.journal.close();
    const bytes = readFileSync(file);
    assert.equal(bytes.subarray(2 * (FRAME_HEADER_BYTES + 9), 2 * (FRAME_HEADER_BYTES + 9) + 4).toString('ascii'), 'LTJ2', 'new records are written as LTJ2');
    const second = await Journal.open(file);
    assert.deepEqual(second.contents.payloads.map(String), ['{"seq":1}', '{"seq":2}', '{"seq":3}']);
    await second.journal.close();

    // A torn LTJ2 tail is dropped and truncated away.
    writeFileSync(file, Buffer.concat([bytes, encodeFrame(Buffer.from('{"seq":4}')).subarray(0, FRAME_HEADER_BYTES + 3)]));
    const torn = await Journal.open(file);
    assert.deepEqual(torn.contents.payloads.map(String), ['{"seq":1}', '{"seq":2}', '{"seq":3}']);
    assert.equal(torn.contents.droppedBytes, FRAME_HEADER_BYTES + 3);
    await torn.journal.close();

    // Damage inside the first (old) frame, with good frames of both kinds after it: refused.
    const damaged = Buffer.from(bytes);
    damaged[FRAME_HEADER_BYTES + 2] = 0x21;
    writeFileSync(file, damaged);
    await assert.rejects(Journal.open(file), JournalCorruptError);
    assert.equal(intactFrameAfter(damaged, 0), true);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

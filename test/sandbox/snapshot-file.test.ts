/**
 * Snapshot files are written as `LTS2` (CRC-32) and read as `LTS2` or as the `LTS1` (SHA-256) that
 * earlier versions wrote; damage to either is refused, never read as a smaller state.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { crc32 } from '../../src/store/crc32.js';
import { readSnapshotFile, SnapshotDamagedError, writeSnapshotFile } from '../../src/sandbox/ledger/snapshot-file.js';

test('crc32 continues: the CRC-32 of a then b is crc32(b, crc32(a))', () => {
  const a = Buffer.from('1234');
  const b = Buffer.from('56789');
  assert.equal(crc32(b, crc32(a)), crc32(Buffer.concat([a, b])));
  assert.equal(crc32(Buffer.concat([a, b])), 0xcbf43926);
});

test('a snapshot round-trips as LTS2; an LTS1 snapshot of an earlier version still reads; damage to either is refused', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'latch-snapshot-'));
  try {
    const file = path.join(dir, 'snapshot');
    await writeSnapshotFile(file, { covers: 7 }, [Buffer.from('{"a":1}\n'), Buffer.from('{"b":2}\n')]);
    const written = readFileSync(file);
    assert.match(written.subarray(0, written.indexOf(0x0a)).toString('latin1'), /^LTS2 [0-9a-f]{8} \d+$/);
    assert.deepEqual(await readSnapshotFile(file), { meta: { covers: 7 }, body: Buffer.from('{"a":1}\n{"b":2}\n') });

    const rest = Buffer.from('{"covers":3}\n{"old":true}\n');
    const old = Buffer.concat([Buffer.from(`LTS1 ${createHash('sha256').update(rest).digest('hex')} ${rest.length}\n`), rest]);
    writeFileSync(file, old, { mode: 0o600 });
    assert.deepEqual(await readSnapshotFile(file), { meta: { covers: 3 }, body: Buffer.from('{"old":true}\n') });

    for (const [name, bytes] of [['LTS2', written], ['LTS1', old]] as const) {
      const damaged = Buffer.from(bytes);
      damaged[damaged.length - 3] = (damaged[damaged.length - 3] as number) ^ 0x20;
      writeFileSync(file, damaged, { mode: 0o600 });
      await assert.rejects(readSnapshotFile(file), (error: unknown) => error instanceof SnapshotDamagedError && error.reason === 'checksum', name);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

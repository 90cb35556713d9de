import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync, appendFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Journal, JournalCorruptError } from '../../src/store/journal.js';
import { FRAME_HEADER_BYTES } from '../../src/store/frame.js';

function tempJournal(): { file: string; cleanup: () => void } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'latch-journal-'));
  return { file: path.join(dir, 'journal'), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

const RECORDS = ['{"seq":1}', '{"seq":2,"events":["a longer record"]}', '{"seq":3}'];

async function writeRecords(file: string, records: readonly string[]): Promise<number[]> {
  const { journal } = await Journal.open(file);
  const ends: number[] = [];
  for (const record of records) {
    await journal.append(new TextEncoder().encode(record));
    ends.push(statSync(file).size);
  }
  await journal.close();
  return ends;
}

async function readRecords(file: string): Promise<{ records: string[]; dropped: number }> {
  const { journal, contents } = await Journal.open(file);
  await journal.close();
  return { records: contents.payloads.map((p) => p.toString('utf8')), dropped: contents.droppedBytes };
}

test('journal: records written are read back in order, and the file is private', async () => {
  const { file, cleanup } = tempJournal();
  try {
    await writeRecords(file, RECORDS);
    assert.deepEqual(await readRecords(file), { records: RECORDS, dropped: 0 });
    assert.equal(statSync(file).mode & 0o777, 0o600);
  } finally {
    cleanup();
  }
});

test('journal: a torn last record is dropped and truncated, whatever the cut', async () => {
  const { file, cleanup } = tempJournal();
  try {
    const ends = await writeRecords(file, RECORDS);
    const goodEnd = ends[1] as number;
    const fullEnd = ends[2] as number;
    // Cuts inside the magic, the length, the checksum and the payload of the last record.
    for (const keep of [goodEnd + 1, goodEnd + 6, goodEnd + 20, goodEnd + FRAME_HEADER_BYTES, fullEnd - 1]) {
      writeFileSync(file, '');
      await writeRecords(file, RECORDS);
      truncateSync(file, keep);
      const read = await readRecords(file);
      assert.deepEqual(read.records, RECORDS.slice(0, 2), `cut at ${keep}`);
      assert.equal(read.dropped, keep - goodEnd);
      assert.equal(statSync(file).size, goodEnd, 'the torn bytes are truncated away');
      // Appending after the repair continues the journal cleanly.
      const { journal } = await Journal.open(file);
      await journal.append(new TextEncoder().encode('{"seq":3,"again":true}'));
      await journal.close();
      assert.deepEqual((await readRecords(file)).records, [...RECORDS.slice(0, 2), '{"seq":3,"again":true}']);
    }
  } finally {
    cleanup();
  }
});

test('journal: a whole last record with a bad checksum is dropped; garbage after the last record too', async () => {
  const { file, cleanup } = tempJournal();
  try {
    const ends = await writeRecords(file, RECORDS);
    const bytes = readFileSync(file);
    const at = (ends[2] as number) - 2;
    bytes[at] = (bytes[at] as number) ^ 0x01;
    writeFileSync(file, bytes);
    assert.deepEqual((await readRecords(file)).records, RECORDS.slice(0, 2));

    writeFileSync(file, '');
    await writeRecords(file, RECORDS);
    appendFileSync(file, Buffer.from('LTJ1\x00\x00'));
    assert.deepEqual(await readRecords(file), { records: RECORDS, dropped: 6 });
  } finally {
    cleanup();
  }
});

test('journal: damage before the last record refuses to start and leaves the file alone', async () => {
  const { file, cleanup } = tempJournal();
  try {
    const ends = await writeRecords(file, RECORDS);
    const cases: Array<[string, (bytes: Buffer) => void]> = [
      ['payload byte of record 2', (b) => (b[(ends[1] as number) - 3] = (b[(ends[1] as number) - 3] as number) ^ 0x20)],
      ['length field of record 2', (b) => b.writeUInt32BE(10_000, (ends[0] as number) + 4)],
      ['magic of record 1', (b) => (b[0] = 0x00)],
    ];
    for (const [name, damage] of cases) {
      writeFileSync(file, '');
      await writeRecords(file, RECORDS);
      const bytes = readFileSync(file);
      damage(bytes);
      writeFileSync(file, bytes);
      await assert.rejects(Journal.open(file), (error: unknown) => error instanceof JournalCorruptError && /damaged at byte/.test(error.message), name);
      assert.deepEqual(readFileSync(file), bytes, `${name}: file unchanged`);
    }
  } finally {
    cleanup();
  }
});

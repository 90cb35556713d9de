import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Journal, JournalCorruptError, type FramePosition } from '../../src/store/journal.js';
import { JournalResumeError, resumeAfter } from '../../src/sandbox/ledger/journal-resume.js';

const RECORDS = ['{"seq":1}', '{"seq":2,"events":["a longer record"]}', '{"seq":3}', '{"seq":4}'];

/** withJournal writes RECORDS and hands over the file and the position of each record's frame, as the journal reported it. */
async function withJournal(body: (file: string, frames: FramePosition[]) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'latch-resume-'));
  try {
    const file = path.join(dir, 'journal');
    const { journal } = await Journal.open(file);
    const frames: FramePosition[] = [];
    for (const record of RECORDS) {
      await journal.append(Buffer.from(record));
      frames.push(journal.lastFrame as FramePosition);
    }
    await journal.close();
    await body(file, frames);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function resume(file: string, after: FramePosition): Promise<{ records: string[]; dropped: number; last: FramePosition | undefined }> {
  const { journal, contents } = await Journal.open(file, { readContents: resumeAfter(after) });
  await journal.close();
  return { records: contents.payloads.map((payload) => payload.toString('utf8')), dropped: contents.droppedBytes, last: contents.lastFrame };
}

test('journal: the last frame reported while appending is the one a full open finds', async () => {
  await withJournal(async (file, frames) => {
    const { journal, contents } = await Journal.open(file);
    await journal.close();
    assert.deepEqual(contents.lastFrame, frames[frames.length - 1]);
    assert.deepEqual(new Set(frames.map((frame) => frame.offset)).size, RECORDS.length);
  });
});

test('journal: resuming after a frame reads only the records after it', async () => {
  await withJournal(async (file, frames) => {
    for (let index = 0; index < frames.length; index += 1) {
      const resumed = await resume(file, frames[index] as FramePosition);
      assert.deepEqual(resumed.records, RECORDS.slice(index + 1));
      assert.deepEqual(resumed.last, frames[frames.length - 1]);
    }
  });
});

test('journal: resuming drops a torn last record and refuses damage before the last one', async () => {
  await withJournal(async (file, frames) => {
    const size = readFileSync(file).length;
    appendFileSync(file, Buffer.from('LTJ1\u0000\u0000'));
    assert.deepEqual(await resume(file, frames[1] as FramePosition), { records: RECORDS.slice(2), dropped: 6, last: frames[3] });
    assert.equal(readFileSync(file).length, size);
    const bytes = readFileSync(file);
    const third = (frames[2] as FramePosition).offset;
    bytes[third + 45] = (bytes[third + 45] as number) ^ 0xff;
    writeFileSync(file, bytes);
    await assert.rejects(resume(file, frames[1] as FramePosition), (error: unknown) => error instanceof JournalCorruptError && error.offset === third);
  });
});

/** Resume points the file does not continue from: each refuses with JournalResumeError, reading nothing. */
const NOT_CONTINUED: Array<{ name: string; point: (frames: FramePosition[]) => FramePosition; change?: (file: string, frames: FramePosition[]) => void }> = [
  { name: 'a checksum that is not the frame there', point: (frames) => ({ offset: (frames[1] as FramePosition).offset, checksum: (frames[2] as FramePosition).checksum }) },
  { name: 'an offset inside a frame', point: (frames) => ({ offset: (frames[1] as FramePosition).offset + 3, checksum: (frames[1] as FramePosition).checksum }) },
  { name: 'an offset past the end', point: (frames) => ({ offset: 1_000_000, checksum: (frames[1] as FramePosition).checksum }) },
  { name: 'a negative offset', point: (frames) => ({ offset: -1, checksum: (frames[1] as FramePosition).checksum }) },
  { name: 'a file cut inside the expected frame', point: (frames) => frames[3] as FramePosition, change: (file, frames) => truncateSync(file, (frames[3] as FramePosition).offset + 10) },
  { name: 'a damaged expected frame', point: (frames) => frames[1] as FramePosition, change: (file, frames) => flip(file, (frames[1] as FramePosition).offset + 44) },
];

function flip(file: string, at: number): void {
  const bytes = readFileSync(file);
  bytes[at] = (bytes[at] as number) ^ 0x01;
  writeFileSync(file, bytes);
}

for (const { name, point, change } of NOT_CONTINUED) {
  test(`journal: resuming after ${name} refuses with JournalResumeError and leaves the file as it was`, async () => {
    await withJournal(async (file, frames) => {
      change?.(file, frames);
      const before = readFileSync(file);
      await assert.rejects(resume(file, point(frames)), (error: unknown) => error instanceof JournalResumeError);
      assert.deepEqual(readFileSync(file), before);
    });
  });
}

/**
 * readAuditLines reads audit.log in 1 MiB chunks and yields views of them: every line must come
 * out whole, with its exact bytes, wherever the chunk boundaries fall — compared here with a
 * plain split of the same file.
 */
import assert from 'node:assert/strict';
import { closeSync, openSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { AUDIT_LINE_BYTES_MAX } from '../../src/datadir/audit-lines.js';
import { readAuditLines } from '../../src/verify/audit-lines-read.js';
import { tempHome } from './temp-home.js';

const MIB = 1024 * 1024;

/** linesOf reads file with readAuditLines, copying each line's bytes before the reader moves on. */
function linesOf(file: string) {
  const fd = openSync(file, 'r');
  try {
    return [...readAuditLines(fd)].map((line) => ({ ...line, text: line.bytes.toString('latin1') }));
  } finally {
    closeSync(fd);
  }
}

/** copied reads file with readAuditLines, copying each line's bytes as it is yielded. */
function copiedLinesOf(file: string) {
  const fd = openSync(file, 'r');
  const out: Array<{ number: number; text: string; complete: boolean; tooLong: boolean }> = [];
  try {
    for (const line of readAuditLines(fd)) out.push({ number: line.number, text: line.bytes.toString('latin1'), complete: line.complete, tooLong: line.tooLong });
  } finally {
    closeSync(fd);
  }
  return out;
}

test('lines of every length, across 1 MiB chunk boundaries, come out whole and exact', () => {
  const home = tempHome();
  const file = path.join(home, 'lines');
  const lines: string[] = [];
  let size = 0;
  for (let n = 0; size < 3 * MIB + 12_345; n += 1) {
    const length = [1, 435, 7_000, AUDIT_LINE_BYTES_MAX, 99, 16_000][n % 6] as number;
    const line = String.fromCharCode(97 + (n % 26)).repeat(length);
    lines.push(line);
    size += length + 1;
  }
  writeFileSync(file, `${lines.join('\n')}\n`);
  const read = copiedLinesOf(file);
  assert.equal(read.length, lines.length);
  read.forEach((line, index) => {
    assert.equal(line.number, index + 1);
    assert.equal(line.complete, true);
    assert.equal(line.tooLong, false, `line ${index + 1}`);
    assert.equal(line.text, lines[index], `line ${index + 1} (${lines[index]?.length} bytes)`);
  });
});

test('a line over the limit is reported, not kept, even when it spans chunks; the lines after it are intact', () => {
  const home = tempHome();
  const file = path.join(home, 'long');
  const before = 'b'.repeat(MIB - 100);
  const long = 'x'.repeat(AUDIT_LINE_BYTES_MAX + 1);
  writeFileSync(file, `${before}\n${long}\nafter\n${'y'.repeat(3 * AUDIT_LINE_BYTES_MAX)}\nend\n`);
  const read = copiedLinesOf(file);
  assert.deepEqual(read.map((line) => [line.number, line.tooLong, line.tooLong ? '' : line.text.slice(0, 5)]), [
    [1, true, ''],
    [2, true, ''],
    [3, false, 'after'],
    [4, true, ''],
    [5, false, 'end'],
  ]);
  // The first line is within 100 bytes of a chunk but over the limit: it is reported too long.
  assert.equal(before.length > AUDIT_LINE_BYTES_MAX, true);
});

test('a last line without its newline is yielded as incomplete, also when it spans chunks', () => {
  const home = tempHome();
  for (const [name, text, last] of [
    ['short', 'one\ntwo\nthr', 'thr'],
    ['spanning', `${'a'.repeat(MIB - 3)}\n${'c'.repeat(4_000)}`, 'c'.repeat(4_000)],
  ] as const) {
    const file = path.join(home, name);
    writeFileSync(file, text);
    const read = linesOf(file);
    const final = read.at(-1);
    assert.equal(final?.complete, false, name);
    assert.equal(final?.tooLong, false, name);
    assert.equal(final?.text, last, name);
  }
  const file = path.join(home, 'spanning-copy');
  writeFileSync(file, `x\n${'c'.repeat(MIB + 10)}`);
  assert.deepEqual(copiedLinesOf(file).map((line) => [line.complete, line.tooLong]), [[true, false], [false, true]]);
  const exact = path.join(home, 'exact');
  writeFileSync(exact, `ok\n${'d'.repeat(5_000)}`);
  assert.deepEqual(copiedLinesOf(exact).map((line) => [line.complete, line.text.length]), [[true, 2], [false, 5_000]]);
});

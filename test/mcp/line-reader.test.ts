import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { LineReader, type LineEvent } from '../../src/mcp/line-reader.js';

function feed(reader: LineReader, chunks: Array<string | Buffer>): LineEvent[] {
  const events = chunks.flatMap((chunk) => reader.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk));
  return [...events, ...reader.end()];
}

const lines = (...texts: string[]): LineEvent[] => texts.map((text) => ({ kind: 'line', text }));

describe('LineReader', () => {
  const cases: Array<[string, Array<string | Buffer>, LineEvent[]]> = [
    ['one line', ['{"a":1}\n'], lines('{"a":1}')],
    ['two lines in one chunk', ['a\nb\n'], lines('a', 'b')],
    ['a line across chunks', ['{"a"', ':1}\n'], lines('{"a":1}')],
    ['CRLF endings', ['a\r\nb\r\n'], lines('a', 'b')],
    ['a last line without a newline', ['a\nb'], lines('a', 'b')],
    ['empty lines are lines', ['\n\n'], lines('', '')],
    ['a multi-byte character split across chunks', [Buffer.from([0xe2, 0x82]), Buffer.from([0xac, 0x0a])], lines('€')],
  ];
  for (const [name, chunks, expected] of cases) test(name, () => assert.deepEqual(feed(new LineReader(), chunks), expected));

  test('a line longer than the bound is reported once and dropped up to its newline; the next line is read', () => {
    const reader = new LineReader(8);
    assert.deepEqual(feed(reader, ['0123456', '789abc', 'def\nok\n']), [{ kind: 'too_long' }, ...lines('ok')]);
  });

  test('a line of exactly the bound is accepted', () => {
    assert.deepEqual(feed(new LineReader(8), ['01234567\n']), lines('01234567'));
  });

  test('an endless line without a newline stays bounded and yields nothing at the end', () => {
    const reader = new LineReader(16);
    const events: LineEvent[] = [];
    for (let i = 0; i < 100; i++) events.push(...reader.push(Buffer.alloc(10, 0x61)));
    assert.deepEqual([...events, ...reader.end()], [{ kind: 'too_long' }]);
  });
});

/** The longest message line accepted: far above any real tools/call, far below a memory problem. */
export const LINE_BYTES_MAX = 1024 * 1024;

/** What the reader reports: a complete line (without its newline) or a line that was too long. */
export type LineEvent = { kind: 'line'; text: string } | { kind: 'too_long' };

/**
 * LineReader splits a byte stream into newline-delimited lines (MCP's stdio framing) with a
 * bound: a line longer than LINE_BYTES_MAX is reported once as too long and its bytes are
 * dropped up to the next newline, so a client that never sends a newline cannot grow memory.
 * Lines are decoded as UTF-8 only when complete, so characters split across chunks stay whole.
 */
export class LineReader {
  private pieces: Buffer[] = [];
  private pending = 0;
  private discarding = false;

  constructor(private readonly lineBytesMax: number = LINE_BYTES_MAX) {}

  /** push takes the next chunk and returns the events it completes. */
  push(chunk: Buffer): LineEvent[] {
    const events: LineEvent[] = [];
    let start = 0;
    for (let newline = chunk.indexOf(0x0a, start); newline !== -1; newline = chunk.indexOf(0x0a, start)) {
      this.keep(chunk.subarray(start, newline), events);
      if (!this.discarding) events.push({ kind: 'line', text: this.take() });
      this.reset();
      start = newline + 1;
    }
    this.keep(chunk.subarray(start), events);
    return events;
  }

  /** end returns the last line when the stream ends without a final newline. */
  end(): LineEvent[] {
    const events: LineEvent[] = this.discarding || this.pending === 0 ? [] : [{ kind: 'line', text: this.take() }];
    this.reset();
    return events;
  }

  private keep(part: Buffer, events: LineEvent[]): void {
    if (this.discarding || part.length === 0) return;
    if (this.pending + part.length > this.lineBytesMax) {
      this.discarding = true;
      this.pieces = [];
      this.pending = 0;
      events.push({ kind: 'too_long' });
      return;
    }
    // The chunk's buffer may be reused by the stream, so the part is copied.
    this.pieces.push(Buffer.from(part));
    this.pending += part.length;
  }

  private take(): string {
    return Buffer.concat(this.pieces).toString('utf8').replace(/\r$/, '');
  }

  private reset(): void {
    this.pieces = [];
    this.pending = 0;
    this.discarding = false;
  }
}

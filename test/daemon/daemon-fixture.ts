import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';

/** CaptureStream keeps everything the daemon logs, so tests can assert what never appears. */
export class CaptureStream extends Writable {
  private readonly chunks: string[] = [];
  override _write(chunk: Buffer | string, _encoding: BufferEncoding, callback: () => void): void {
    this.chunks.push(chunk.toString());
    callback();
  }
  text(): string {
    return this.chunks.join('');
  }
  /** lines returns the parsed JSON log lines. */
  lines(): Array<Record<string, unknown>> {
    return this.text()
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  }
}

/** tempHome makes a fresh temporary directory; `home` inside it does not exist yet. */
export function tempHome(): { root: string; home: string; remove(): void } {
  const root = mkdtempSync(path.join(os.tmpdir(), 'latch-daemon-test-'));
  return { root, home: path.join(root, 'home'), remove: () => rmSync(root, { recursive: true, force: true }) };
}

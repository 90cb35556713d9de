import { Writable } from 'node:stream';
import type { CliIo } from '../../src/cli/command.js';

/** TextSink collects what a command writes. */
export class TextSink extends Writable {
  text = '';
  override _write(chunk: Buffer | string, _encoding: BufferEncoding, callback: () => void): void {
    this.text += chunk.toString();
    callback();
  }
}

/** captureIo returns CliIo with captured stdout and stderr and the given environment. */
export function captureIo(env: NodeJS.ProcessEnv): CliIo & { stdout: TextSink; stderr: TextSink } {
  return { stdout: new TextSink(), stderr: new TextSink(), env };
}

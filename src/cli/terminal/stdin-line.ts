import type { TerminalInput } from './key-input.js';

// A passphrase line is at most 1024 characters of up to 4 bytes; anything longer is not one.
const STDIN_LINE_BYTES_MAX = 8192;

/** StdinLineError is standard input without a usable first line (empty, or too long). */
export class StdinLineError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StdinLineError';
  }
}

/**
 * readStdinLine reads the first line of standard input (for --passphrase-stdin): up to the first
 * newline or the end, without the line ending. The rest of the input is not read. Nothing read is
 * ever part of an error message.
 */
export function readStdinLine(stream: TerminalInput): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (error: Error | undefined): void => {
      stream.off('data', onData);
      stream.off('end', onEnd);
      stream.off('error', onError);
      stream.pause();
      if (error !== undefined) return reject(error);
      const text = Buffer.concat(chunks).toString('utf8');
      const end = text.indexOf('\n');
      const line = (end === -1 ? text : text.slice(0, end)).replace(/\r$/, '');
      resolve(line);
    };
    const onData = (chunk: Buffer | string): void => {
      const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      const newline = buffer.indexOf(0x0a);
      chunks.push(newline === -1 ? buffer : buffer.subarray(0, newline + 1));
      size += buffer.length;
      if (newline !== -1) return finish(undefined);
      if (size > STDIN_LINE_BYTES_MAX) finish(new StdinLineError('The first line of standard input is too long for a passphrase.'));
    };
    const onEnd = (): void => finish(size === 0 ? new StdinLineError('Standard input was empty: expected the passphrase on its first line.') : undefined);
    const onError = (): void => finish(new StdinLineError('Standard input could not be read.'));
    stream.on('data', onData);
    stream.on('end', onEnd);
    stream.on('error', onError);
    stream.resume();
  });
}

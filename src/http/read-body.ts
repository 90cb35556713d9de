import type { IncomingMessage } from 'node:http';
import { LatchError } from '../errors/latch-error.js';

/** The local API's body cap (docs/decisions.md §8). */
export const LOCAL_BODY_BYTES_MAX = 64 * 1024;

/**
 * readBody collects a request body up to bodyBytesMax bytes. A declared Content-Length above the
 * cap is refused before reading; a body that grows past it is refused as soon as it does.
 */
export function readBody(request: IncomingMessage, bodyBytesMax: number): Promise<Uint8Array> {
  const declared = request.headers['content-length'];
  if (declared !== undefined && Number(declared) > bodyBytesMax) {
    return Promise.reject(new LatchError('payload_too_large'));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    let settled = false;
    const finish = (error: LatchError | undefined): void => {
      if (settled) return;
      settled = true;
      request.off('data', onData);
      request.off('end', onEnd);
      request.off('error', onError);
      request.off('aborted', onAborted);
      if (error === undefined) resolve(new Uint8Array(Buffer.concat(chunks, received)));
      else reject(error);
    };
    const onData = (chunk: Buffer): void => {
      received += chunk.length;
      if (received > bodyBytesMax) {
        // Stop buffering at once; the response closes the connection.
        request.pause();
        finish(new LatchError('payload_too_large'));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => finish(undefined);
    const onError = (): void => finish(new LatchError('invalid_request', { param: 'body', message: 'The request body could not be read.' }));
    const onAborted = (): void => finish(new LatchError('invalid_request', { param: 'body', message: 'The request was aborted.' }));
    request.on('data', onData);
    request.on('end', onEnd);
    request.on('error', onError);
    request.on('aborted', onAborted);
  });
}

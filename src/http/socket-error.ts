import type { Duplex } from 'node:stream';
import { STATUS_CODES } from 'node:http';
import { errorBody } from '../errors/error-body.js';
import type { LatchError } from '../errors/latch-error.js';

/**
 * writeSocketError answers on a bare socket, for the cases Node's HTTP layer hands over before
 * there is a response object (parse errors, header timeouts, CONNECT), with the same error body
 * and security headers as every other answer, then closes the connection.
 */
export function writeSocketError(socket: Duplex, error: LatchError, requestId: string): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const body = JSON.stringify(errorBody(error, requestId));
  const head = [
    `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status] ?? 'Error'}`,
    'Cache-Control: no-store',
    'X-Content-Type-Options: nosniff',
    `X-Request-Id: ${requestId}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
  ];
  socket.end(`${head.join('\r\n')}\r\n\r\n${body}`);
  // A peer that never reads must not keep the socket; end() alone waits for the flush.
  socket.once('finish', () => socket.destroy());
}

/**
 * Step 0 of the front door: whether the message is framed so that this server and any other reader
 * agree where it ends. A request that fails here is refused and its connection closed, since
 * nothing after it on the connection can be trusted to start where Node thinks it does.
 */
import type { IncomingMessage } from 'node:http';
import { invalidRequest, type LatchError } from '../errors/latch-error.js';

/**
 * framingFault returns the refusal of a badly framed request, or undefined:
 *
 * - llhttp takes a request line without a version for HTTP/0.9 and still reads headers and a body
 *   after it; only HTTP/1.0 and 1.1 are spoken here.
 * - RFC 9112 §6.1: Transfer-Encoding in an HTTP/1.0 message means the framing is faulty (a 1.0 peer
 *   or intermediary may not know chunked and read the body differently).
 * - Node keeps only the first maxHeadersCount fields and drops the rest without a word, so a second
 *   Host, Authorization or an Origin hidden behind enough filler would never reach the front door's
 *   checks. The server asks Node for one field more than `headersCountMax`, and a request that
 *   reaches it is refused.
 */
export function framingFault(request: IncomingMessage, headersCountMax: number): LatchError | undefined {
  if (request.httpVersionMajor !== 1) return invalidRequest('version', 'Only HTTP/1.0 and HTTP/1.1 are supported.');
  if (request.httpVersionMinor === 0 && request.headers['transfer-encoding'] !== undefined) {
    return invalidRequest('headers', 'Transfer-Encoding is not allowed in an HTTP/1.0 request.');
  }
  if (request.rawHeaders.length / 2 > headersCountMax) return invalidRequest('headers', `A request may carry at most ${headersCountMax} header fields.`);
  return undefined;
}

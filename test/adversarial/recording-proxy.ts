/**
 * A man in the middle between the daemon and the sandbox: it records every request exactly as the
 * daemon signed it (method, target, headers with the Host the signature covers, body bytes), and
 * either forwards it unchanged and passes the answer back, or keeps it without forwarding, so a
 * test holds a signed request the cloud has never seen.
 */
import http, { type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { send, type Answer } from '../support/sandbox-client.js';

/** A request as the daemon sent it. */
export interface CapturedRequest {
  method: string;
  target: string;
  headers: Record<string, string>;
  body: Buffer;
}

export interface RecordingProxy {
  /** The origin to give the daemon as LATCH_CLOUD_URL. */
  url: string;
  captured: CapturedRequest[];
  /**
   * forward: pass requests on to the sandbox (default); keep: record only, answer 409;
   * strip-idempotency-key: pass each request on without its Idempotency-Key, keep the cloud's
   * answer in `stripped` and tell the daemon 503, so that it retries; drop: record, forward
   * nothing and hang up without an answer (the cloud unreachable, the outcome unknown to the daemon).
   */
  mode: 'forward' | 'keep' | 'strip-idempotency-key' | 'drop';
  /** The cloud's answers to the requests forwarded in strip-idempotency-key mode. */
  stripped: Answer[];
  close(): Promise<void>;
}

/** startRecordingProxy listens on 127.0.0.1:0 in front of upstreamUrl. */
export async function startRecordingProxy(upstreamUrl: string): Promise<RecordingProxy> {
  const proxy: RecordingProxy = { url: '', captured: [], mode: 'forward', stripped: [], close: async () => undefined };
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const captured: CapturedRequest = { method: request.method ?? '', target: request.url ?? '', headers: flatHeaders(request.headers), body: Buffer.concat(chunks) };
      proxy.captured.push(captured);
      if (proxy.mode === 'drop') {
        response.destroy();
        return;
      }
      if (proxy.mode === 'keep') {
        // 409 is an answer the daemon passes back without retrying, so each request is sent once.
        const text = JSON.stringify({ error: { code: 'idempotency_key_in_use', message: 'kept by the test proxy' } });
        response.writeHead(409, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) });
        response.end(text);
        return;
      }
      if (proxy.mode === 'strip-idempotency-key') {
        const headers = Object.fromEntries(Object.entries(captured.headers).filter(([name]) => name !== 'idempotency-key'));
        replay(upstreamUrl, captured, { headers }).then(
          (answer) => {
            proxy.stripped.push(answer);
            const text = JSON.stringify({ error: { code: 'upstream_unavailable', message: 'dropped by the test proxy' } });
            response.writeHead(503, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) });
            response.end(text);
          },
          () => response.destroy(),
        );
        return;
      }
      replay(upstreamUrl, captured).then(
        (answer) => {
          response.writeHead(answer.status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(answer.text)) });
          response.end(answer.text);
        },
        () => response.destroy(),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  proxy.close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return proxy;
}

/**
 * replay sends a captured request to upstreamUrl byte for byte: the same method, target, headers
 * (Host included, so @authority is what was signed) and body.
 */
export function replay(upstreamUrl: string, request: CapturedRequest, changes: Partial<CapturedRequest> = {}): Promise<Answer> {
  const changed = { ...request, ...changes };
  const headers = { ...changed.headers };
  // send() sets Content-Length from the body it is given.
  delete headers['content-length'];
  delete headers['connection'];
  return send(upstreamUrl, { method: changed.method, target: changed.target, headers, ...(changed.body.length > 0 ? { body: new Uint8Array(changed.body) } : {}) });
}

function flatHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (typeof value === 'string') flat[name] = value;
    else if (Array.isArray(value)) flat[name] = value.join(', ');
  }
  return flat;
}

/**
 * A scripted stand-in for the daemon on 127.0.0.1 port 0, for client tests that must count
 * requests exactly and answer in ways a real daemon never does (non-JSON, oversized, silent).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SeenRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** What the stub does with one request: answer with a status and body, or hang up, or never answer. */
export type StubAction = { status: number; body: unknown; raw?: boolean } | { hangUp: true } | { silent: true };

export interface StubDaemon {
  url: string;
  seen: SeenRequest[];
  /** Actions for the next requests, in order (a function runs when its request arrives); when empty the stub answers 200 {}. */
  script: Array<StubAction | (() => StubAction)>;
  close(): Promise<void>;
}

/** errorBody is the daemon's common error body. */
export function errorBody(code: string, message = 'refused'): unknown {
  return { error: { code, message } };
}

/** startStubDaemon starts the stub; close() stops it and drops every connection. */
export async function startStubDaemon(): Promise<StubDaemon> {
  const seen: SeenRequest[] = [];
  const script: Array<StubAction | (() => StubAction)> = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      seen.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
      const step = script.shift() ?? { status: 200, body: {} };
      const action = typeof step === 'function' ? step() : step;
      if ('hangUp' in action) {
        request.socket.destroy();
        return;
      }
      if ('silent' in action) return;
      const text = action.raw === true ? String(action.body) : JSON.stringify(action.body);
      response.writeHead(action.status, { 'content-type': 'application/json' });
      response.end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    script,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

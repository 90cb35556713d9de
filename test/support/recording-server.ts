/**
 * A stand-in cloud that records every request it receives exactly as it arrived (method, raw
 * target, raw headers, body bytes) and answers as the test says: a fixed JSON answer by default,
 * any status and body, a redirect, or never (to exercise the daemon's upstream timeout).
 */
import http, { type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as the upstream received it. */
export interface RecordedRequest {
  method: string;
  /** The request target exactly as sent on the wire. */
  target: string;
  headers: IncomingHttpHeaders;
  /** Names and values in order, duplicates kept. */
  rawHeaders: string[];
  body: Buffer;
}

/** How the server answers one request; `hang` never answers. */
export type Responder = (request: RecordedRequest, response: ServerResponse) => void | 'hang';

/** A running recording server on 127.0.0.1 and an ephemeral port. */
export interface RecordingServer {
  /** The origin, e.g. `http://127.0.0.1:45678`: usable as LATCH_CLOUD_URL. */
  url: string;
  port: number;
  requests: RecordedRequest[];
  /** Replace the answer for the following requests. */
  respondWith(responder: Responder): void;
  /** Everything received, headers and bodies, as one text (for "never contains" assertions). */
  everything(): string;
  close(): Promise<void>;
}

/** A JSON answer with the given status. */
export function jsonAnswer(status: number, body: unknown, headers: Record<string, string> = {}): Responder {
  return (_request, response) => {
    const text = JSON.stringify(body);
    response.writeHead(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)), ...headers });
    response.end(text);
  };
}

/** A responder that never answers: the daemon's upstream timeout must fire. */
export const hang: Responder = () => 'hang';

/** startRecordingServer listens on 127.0.0.1:0; by default it answers 200 `{"ok":true}`. */
export async function startRecordingServer(responder: Responder = jsonAnswer(200, { ok: true })): Promise<RecordingServer> {
  let current = responder;
  const requests: RecordedRequest[] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const recorded: RecordedRequest = {
        method: request.method ?? '',
        target: request.url ?? '',
        headers: request.headers,
        rawHeaders: request.rawHeaders,
        body: Buffer.concat(chunks),
      };
      requests.push(recorded);
      current(recorded, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    respondWith: (next) => {
      current = next;
    },
    everything: () => requests.map((r) => `${r.method} ${r.target}\n${r.rawHeaders.join('\n')}\n${r.body.toString('latin1')}`).join('\n'),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

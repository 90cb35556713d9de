import http from 'node:http';
import { proofAddress } from '../http/daemon-proof.js';

/** The largest answer the client reads; the biggest legitimate one (a proxied list) is far smaller. */
export const RESPONSE_BYTES_MAX = 4 * 1024 * 1024;

/** One request as the transport sends it. */
export interface TransportRequest {
  method: string;
  /** Origin-form target: path and query. */
  target: string;
  headers: Record<string, string>;
  body?: string;
  timeoutMs: number;
}

/** The daemon's answer: status, headers, content type and the body text. */
export interface TransportAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  contentType: string;
  text: string;
}

/**
 * Why no answer arrived: `refused` means the request never reached a daemon (nothing listens,
 * no route to the address), so it had no effect; `lost` means the connection failed or timed
 * out after the request may have been received; `too_large` means the answer exceeded
 * RESPONSE_BYTES_MAX.
 */
export type TransportFailureKind = 'refused' | 'lost' | 'too_large';

/** TransportFailure is a request that got no usable HTTP answer. */
export class TransportFailure extends Error {
  constructor(
    readonly kind: TransportFailureKind,
    /** The system error code (ECONNREFUSED ...) or `timeout`; never anything secret. */
    readonly reason: string,
  ) {
    super(`${kind}: ${reason}`);
    this.name = 'TransportFailure';
  }
}

// Errors that prove nothing reached a listening daemon.
const NOT_CONNECTED: ReadonlySet<string> = new Set(['ECONNREFUSED', 'EADDRNOTAVAIL', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

/**
 * HttpTransport sends requests to one loopback origin over keep-alive connections (node:http, so
 * that no header is added behind our back and the answer's size is bounded). It never retries.
 */
export class HttpTransport {
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
  private readonly hostname: string;
  private readonly port: number;
  /** The literal address and port this transport connects to, as the daemon proof binds them. */
  readonly address: string;

  constructor(origin: string) {
    const url = new URL(origin);
    // node:http wants an IPv6 literal without brackets; it adds them back in the Host header.
    this.hostname = url.hostname.replace(/^\[(.*)\]$/, '$1');
    this.port = url.port === '' ? 80 : Number(url.port);
    this.address = proofAddress(this.hostname, this.port);
  }

  /** send performs one request and resolves with the answer, or rejects with a TransportFailure. */
  send(request: TransportRequest): Promise<TransportAnswer> {
    return new Promise((resolve, reject) => {
      let settled = false;
      const fail = (failure: TransportFailure): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        outgoing.destroy();
        reject(failure);
      };
      const headers: Record<string, string> = { ...request.headers };
      if (request.body !== undefined) headers['content-length'] = String(Buffer.byteLength(request.body));
      const outgoing = http.request(
        { agent: this.agent, hostname: this.hostname, port: this.port, method: request.method, path: request.target, headers },
        (response) => {
          const chunks: Buffer[] = [];
          let size = 0;
          response.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size > RESPONSE_BYTES_MAX) {
              // Settled first: destroying the response emits its own error, which must not win.
              fail(new TransportFailure('too_large', 'answer too large'));
              response.destroy();
              return;
            }
            chunks.push(chunk);
          });
          response.on('error', (error: NodeJS.ErrnoException) => fail(new TransportFailure('lost', error.code ?? 'ERROR')));
          // A connection closed before the end of the body is a lost answer.
          response.on('close', () => fail(new TransportFailure('lost', 'closed')));
          response.on('end', () => {
            if (settled) return;
            settled = true;
            clearTimeout(timer);
            resolve({ status: response.statusCode ?? 0, headers: response.headers, contentType: String(response.headers['content-type'] ?? ''), text: Buffer.concat(chunks).toString('utf8') });
          });
        },
      );
      const timer = setTimeout(() => fail(new TransportFailure('lost', 'timeout')), request.timeoutMs);
      outgoing.on('error', (error: NodeJS.ErrnoException) => {
        const code = error.code ?? 'ERROR';
        fail(new TransportFailure(NOT_CONNECTED.has(code) ? 'refused' : 'lost', code));
      });
      outgoing.end(request.body);
    });
  }

  /** close drops the idle keep-alive connections, so that a finished program can exit. */
  close(): void {
    this.agent.destroy();
  }
}

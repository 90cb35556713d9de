import http from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { performance } from 'node:perf_hooks';
import { invalidRequest, LatchError } from '../errors/latch-error.js';
import { randomId } from '../ids/random-id.js';
import { PROOF_HEADER, proofForRequest, type ProofTokenFor } from './daemon-proof.js';
import type { EventLog } from './event-log.js';
import type { FrontDoor } from './front-door.js';
import { isLoopbackAddress } from './loopback.js';
import { sendError } from './respond.js';
import { writeSocketError } from './socket-error.js';

/** Limits on every connection of a local listener (docs/decisions.md §8, TigerStyle: a limit on everything). */
export interface ServerLimits {
  /** Time to receive the request line and all headers. */
  headersTimeoutMs: number;
  /** Time to receive the whole request, body included. */
  requestTimeoutMs: number;
  /** How long an idle keep-alive connection stays open. */
  keepAliveTimeoutMs: number;
  /** Inactivity on a socket before it is destroyed; above the proxy's upstream deadline. */
  socketIdleTimeoutMs: number;
  /** Concurrent connections; further connections are dropped at once. */
  connectionsMax: number;
  /** Total size of the request line and headers. */
  headerBytesMax: number;
  /** Header fields in one request; a request with more is refused, never silently truncated. */
  headersCountMax: number;
  /** Requests served on one keep-alive connection before it is closed. */
  requestsPerSocketMax: number;
}

/** The defaults of ServerLimits. */
export const DEFAULT_SERVER_LIMITS: Readonly<ServerLimits> = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  socketIdleTimeoutMs: 60_000,
  connectionsMax: 256,
  headerBytesMax: 16 * 1024,
  headersCountMax: 100,
  requestsPerSocketMax: 1_000,
};

// Node checks the header and request timeouts on this interval; the default (30 s) would make a
// 10 s header limit effectively 40 s.
const TIMEOUT_CHECK_INTERVAL_MS = 1_000;
// How often listen on port 0 picks another port when [::1] has the one picked for 127.0.0.1.
const EPHEMERAL_BIND_ATTEMPTS = 5;
// A flood of refused connections is logged once per this interval, with how many were refused.
const REFUSAL_LOG_INTERVAL_MS = 10_000;

export interface LocalServerOptions {
  /** The listener's name in log lines (`a` or `b`). */
  listener: string;
  /** A literal loopback address; default 127.0.0.1. Anything else is refused. */
  host?: string;
  /** The port; 0 picks a free one. */
  port: number;
  frontDoor: FrontDoor;
  log: EventLog;
  limits?: Partial<ServerLimits>;
  /**
   * The token that keys the daemon proof for a client naming no agent (the daemon token) or an
   * agent (that agent's token), when this listener answers the proof on GET /health (Variant A's
   * listener only; see daemon-proof.ts).
   */
  proofToken?: ProofTokenFor;
  /**
   * When given, requests are held until it resolves (and their connections dropped if it
   * rejects): the daemon binds its ports first and rotates its token before serving anything.
   */
  ready?: Promise<void>;
}

/** A loopback HTTP listener with the front door in front of every request. */
export interface LocalServer {
  /** listen binds the port and resolves with the actual port (useful with port 0). */
  listen(): Promise<number>;
  /** address returns the bound IPv4 (or given) address and port; undefined before listen. */
  address(): { address: string; port: number } | undefined;
  /** addresses lists every bound socket: 127.0.0.1 and, where the machine has it, [::1]. */
  addresses(): Array<{ address: string; port: number }>;
  /**
   * close stops accepting connections, lets in-flight requests finish for up to deadlineMs, then
   * aborts the handlers and destroys the remaining sockets.
   */
  close(deadlineMs: number): Promise<void>;
}

/**
 * createLocalServer makes a node:http server that listens on loopback only, with the limits of
 * ServerLimits and the strict HTTP parser. Requests go to the front door; requests Node refuses
 * before there is a response object (malformed, too-large headers, timeouts, CONNECT) get the
 * same JSON error body and are logged the same way.
 */
export function createLocalServer(options: LocalServerOptions): LocalServer {
  const host = options.host ?? '127.0.0.1';
  if (!isLoopbackAddress(host)) throw new Error(`refusing to listen on ${host}: the local API listens on loopback only`);
  const limits: ServerLimits = { ...DEFAULT_SERVER_LIMITS, ...options.limits };
  const shutdown = new AbortController();
  // Aborted when close() begins: holds for an owner's decision answer at once (docs/decisions.md §24.3).
  const stopping = new AbortController();
  let closing = false;
  let boundPort = 0;
  let openConnections = 0;
  // Responses not yet finished, so that close() can mark them `Connection: close`.
  const inFlight = new Set<http.ServerResponse>();
  // Held requests wait on the gate; once it is open, requests are served without a detour.
  let isReady = options.ready === undefined;
  const ready = options.ready ?? Promise.resolve();
  ready.then(
    () => (isReady = true),
    () => undefined,
  );

  function serve(request: http.IncomingMessage, response: http.ServerResponse): void {
    // Node keeps only the first maxHeadersCount fields and drops the rest without a word, so a
    // second Host, Authorization or an Origin hidden behind enough filler would never reach the
    // front door's checks. Node is asked for one field more than the limit, and a request that
    // reaches it is refused.
    // llhttp takes a request line without a version for HTTP/0.9 and still reads headers and a
    // body after it; only HTTP/1.0 and 1.1 are spoken here.
    if (request.httpVersionMajor !== 1) {
      refuseRequest(request, response, invalidRequest('version', 'Only HTTP/1.0 and HTTP/1.1 are supported.'));
      return;
    }
    // RFC 9112 §6.1: Transfer-Encoding in an HTTP/1.0 message means the framing is faulty (a 1.0
    // peer or intermediary may not know chunked and read the body differently); refuse and close.
    if (request.httpVersionMinor === 0 && request.headers['transfer-encoding'] !== undefined) {
      refuseRequest(request, response, invalidRequest('headers', 'Transfer-Encoding is not allowed in an HTTP/1.0 request.'));
      return;
    }
    if (request.rawHeaders.length / 2 > limits.headersCountMax) {
      refuseRequest(request, response, invalidRequest('headers', `A request may carry at most ${limits.headersCountMax} header fields.`));
      return;
    }
    if (options.proofToken !== undefined) attachProof(request, response, options.proofToken);
    // The front door answers every failure itself; this catch is the last guard against a bug
    // in writing an answer taking the process down.
    options.frontDoor(request, response, { port: boundPort, shutdown: shutdown.signal, stopping: stopping.signal }).catch(() => response.destroy());
  }
  // A request refused before the front door: the same error body, request id and log line, and
  // the connection closes, since its body (if any) is not read.
  function refuseRequest(request: http.IncomingMessage, response: http.ServerResponse, error: LatchError): void {
    const requestId = randomId('req');
    request.resume();
    response.setHeader('x-request-id', requestId);
    sendError(response, error, requestId, { close: true });
    options.log.info('request', { listener: options.listener, method: 'other', route: null, status: error.status, request_id: requestId, code: error.code });
  }
  // Connections refused at the cap, logged at most once per REFUSAL_LOG_INTERVAL_MS.
  let refusedSinceLog = 0;
  let refusalLoggedAtMs = -Infinity;
  const noteCapRefusal = (): void => {
    refusedSinceLog++;
    const nowMs = performance.now();
    if (nowMs - refusalLoggedAtMs < REFUSAL_LOG_INTERVAL_MS) return;
    options.log.warn('connections_refused', { listener: options.listener, reason: 'connections_max', connections_max: limits.connectionsMax, refused: refusedSinceLog });
    refusalLoggedAtMs = nowMs;
    refusedSinceLog = 0;
  };
  const refuse = (socket: Duplex, error: LatchError, event: string): void => {
    const requestId = randomId('req');
    writeSocketError(socket, error, requestId);
    options.log.info('request', { listener: options.listener, method: event, route: null, status: error.status, request_id: requestId, code: error.code });
  };
  /**
   * makeServer makes one node:http server with every limit and refusal; a listener has one per
   * loopback family, sharing the handler, the gate and the connection budget.
   */
  function makeServer(): http.Server {
    const server = http.createServer(
      {
        insecureHTTPParser: false,
        maxHeaderSize: limits.headerBytesMax,
        headersTimeout: limits.headersTimeoutMs,
        requestTimeout: limits.requestTimeoutMs,
        keepAliveTimeout: limits.keepAliveTimeoutMs,
        connectionsCheckingInterval: TIMEOUT_CHECK_INTERVAL_MS,
        // The front door answers a missing Host with 403 forbidden_host, not Node's bare 400.
        requireHostHeader: false,
      },
      (request, response) => {
        if (closing) response.setHeader('connection', 'close');
        inFlight.add(response);
        response.once('close', () => inFlight.delete(response));
        if (isReady) serve(request, response);
        else ready.then(() => serve(request, response), () => response.destroy());
      },
    );

    server.maxHeadersCount = limits.headersCountMax + 1;
    server.maxConnections = limits.connectionsMax;
    server.maxRequestsPerSocket = limits.requestsPerSocketMax;
    server.setTimeout(limits.socketIdleTimeoutMs, (socket: Socket) => socket.destroy());

    server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
      if (error.code === 'ECONNRESET' || !socket.writable) {
        socket.destroy();
        return;
      }
      refuse(socket, clientErrorAnswer(error), 'other');
    });
    // An Expect other than 100-continue: Node's own answer would be a bare 417 without the error
    // body or a request id, so the refusal is written here like every other one.
    server.on('checkExpectation', (request: http.IncomingMessage, response: http.ServerResponse) =>
      refuseRequest(request, response, invalidRequest('expect', 'Only "Expect: 100-continue" is supported.')),
    );
    // CONNECT carries an authority-form target: never a request for this API.
    server.on('connect', (_request: http.IncomingMessage, socket: Duplex) => refuse(socket, new LatchError('forbidden_host'), 'CONNECT'));

    // One budget for both families: each server's own maxConnections counts only its sockets.
    server.on('connection', (socket: Socket) => {
      openConnections++;
      socket.once('close', () => openConnections--);
      if (openConnections > limits.connectionsMax) {
        socket.destroy();
        noteCapRefusal();
      }
    });
    // Node closes a connection beyond this server's maxConnections itself, and says so here.
    server.on('drop', noteCapRefusal);
    return server;
  }

  // The IPv4 socket; and [::1] on the same port when the listener is on 127.0.0.1, so that no
  // other program can hold the daemon's port on the other loopback family (a client whose
  // "localhost" resolves to ::1 first would reach it, and hand it the token).
  const primary = makeServer();
  const servers: http.Server[] = [primary];

  async function listenOnce(): Promise<number> {
    await bind(primary, host, options.port);
    const port = (primary.address() as { port: number }).port;
    if (host !== '127.0.0.1') return port;
    const secondary = makeServer();
    try {
      await bind(secondary, '::1', port);
      servers.push(secondary);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EADDRNOTAVAIL' || code === 'EAFNOSUPPORT') {
        options.log.warn('ipv6_loopback_unavailable', { listener: options.listener, port, problem: code });
        return port;
      }
      await new Promise<void>((resolve) => primary.close(() => resolve()));
      throw error;
    }
    return port;
  }

  return {
    listen: async () => {
      // With port 0 the kernel picks a port free on 127.0.0.1 only; if [::1] has it taken, pick again.
      for (let attempt = 1; ; attempt++) {
        try {
          boundPort = await listenOnce();
          return boundPort;
        } catch (error) {
          const retry = options.port === 0 && (error as NodeJS.ErrnoException).code === 'EADDRINUSE' && attempt < EPHEMERAL_BIND_ATTEMPTS;
          if (!retry) throw error;
        }
      }
    },
    address: () => {
      const address = primary.address();
      return address !== null && typeof address === 'object' ? { address: address.address, port: address.port } : undefined;
    },
    addresses: () =>
      servers.flatMap((server) => {
        const address = server.address();
        return address !== null && typeof address === 'object' ? [{ address: address.address, port: address.port }] : [];
      }),
    close: async (deadlineMs) => {
      closing = true;
      stopping.abort();
      const listening = servers.filter((server) => server.listening);
      if (listening.length === 0) return;
      // In-flight answers end their connection, so that nothing waits on keep-alive afterwards.
      for (const response of inFlight) if (!response.headersSent) response.setHeader('connection', 'close');
      const deadline = setTimeout(() => {
        shutdown.abort();
        for (const server of listening) server.closeAllConnections();
      }, deadlineMs);
      await Promise.all(
        listening.map(
          (server) =>
            new Promise<void>((resolve) => {
              server.close(() => resolve());
              server.closeIdleConnections();
            }),
        ),
      );
      clearTimeout(deadline);
    },
  };
}

/** bind listens on one address, exclusively (no port sharing with a cluster), IPv6 sockets IPv6 only. */
function bind(server: http.Server, host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error): void => reject(error);
    server.once('error', onError);
    server.listen({ host, port, exclusive: true, ipv6Only: host.includes(':') }, () => {
      server.off('error', onError);
      resolve();
    });
  });
}

/**
 * attachProof sets Latch-Proof on a challenged GET /health. It runs here, not in a handler,
 * because only the server sees the socket's local address, which the proof must bind. A token
 * file that cannot be read (or an unknown agent) gives no proof: the client then refuses to send its token, and the
 * routes that need the file report it.
 */
function attachProof(request: http.IncomingMessage, response: http.ServerResponse, tokenFor: ProofTokenFor): void {
  try {
    const proof = proofForRequest(request, tokenFor);
    if (proof !== undefined) response.setHeader(PROOF_HEADER, proof);
  } catch {
    // No proof; see above.
  }
}

function clientErrorAnswer(error: NodeJS.ErrnoException): LatchError {
  switch (error.code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
    case 'ERR_HTTP_HEADERS_TIMEOUT':
      return new LatchError('request_timeout');
    case 'HPE_HEADER_OVERFLOW':
      return new LatchError('invalid_request', { param: 'headers', message: 'The request headers are too large.' });
    default:
      return new LatchError('invalid_request', { message: 'The request is not valid HTTP.' });
  }
}

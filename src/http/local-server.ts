import { setMaxListeners } from 'node:events';
import http from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { performance } from 'node:perf_hooks';
import { invalidRequest, LatchError } from '../errors/latch-error.js';
import { randomId } from '../ids/random-id.js';
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
 * ServerLimits and the strict HTTP parser. Every request goes to the front door, which refuses
 * faulty framing first (its step 0); what Node refuses before there is a response object
 * (malformed, too-large headers, timeouts, CONNECT, an unknown Expect) gets the same JSON error
 * body and is logged the same way.
 */
export function createLocalServer(options: LocalServerOptions): LocalServer {
  const host = options.host ?? '127.0.0.1';
  if (!isLoopbackAddress(host)) throw new Error(`refusing to listen on ${host}: the local API listens on loopback only`);
  return new LoopbackListener(options, host, { ...DEFAULT_SERVER_LIMITS, ...options.limits });
}

/**
 * LoopbackListener is one listener: a node:http server on 127.0.0.1 and, where the machine has it,
 * another on [::1] at the same port, sharing the handler, the serving gate and the connection
 * budget.
 */
class LoopbackListener implements LocalServer {
  private readonly shutdown = new AbortController();
  // Aborted when close() begins: holds for an owner's decision answer at once (docs/decisions.md §24.3).
  private readonly stopping = new AbortController();
  private readonly gate: ServingGate;
  private readonly budget: ConnectionBudget;
  private readonly servers: http.Server[];
  // Responses not yet finished, so that close() can mark them `Connection: close`.
  private readonly inFlight = new Set<http.ServerResponse>();
  private closing = false;
  private boundPort = 0;

  constructor(
    private readonly options: LocalServerOptions,
    private readonly host: string,
    private readonly limits: ServerLimits,
  ) {
    this.gate = new ServingGate(options.ready);
    // Every request in flight follows both signals with one listener each (front-door.ts), up to
    // the connection cap: many by design, so Node's leak warning at 10 listeners does not apply.
    setMaxListeners(0, this.shutdown.signal, this.stopping.signal);
    this.budget = new ConnectionBudget(limits.connectionsMax, new RefusalLog(options, limits.connectionsMax));
    this.servers = [this.makeServer()];
  }

  async listen(): Promise<number> {
    // With port 0 the kernel picks a port free on 127.0.0.1 only; if [::1] has it taken, pick again.
    for (let attempt = 1; ; attempt++) {
      try {
        this.boundPort = await this.listenOnce();
        return this.boundPort;
      } catch (error) {
        const retry = this.options.port === 0 && (error as NodeJS.ErrnoException).code === 'EADDRINUSE' && attempt < EPHEMERAL_BIND_ATTEMPTS;
        if (!retry) throw error;
      }
    }
  }

  address(): { address: string; port: number } | undefined {
    return addressOf(this.servers[0] as http.Server);
  }

  addresses(): Array<{ address: string; port: number }> {
    return this.servers.flatMap((server) => addressOf(server) ?? []);
  }

  async close(deadlineMs: number): Promise<void> {
    this.closing = true;
    this.stopping.abort();
    const listening = this.servers.filter((server) => server.listening);
    if (listening.length === 0) return;
    // In-flight answers end their connection, so that nothing waits on keep-alive afterwards.
    for (const response of this.inFlight) if (!response.headersSent) response.setHeader('connection', 'close');
    const deadline = setTimeout(() => {
      this.shutdown.abort();
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
  }

  /**
   * listenOnce binds 127.0.0.1 (or the given host) and, on 127.0.0.1, [::1] on the same port, so
   * that no other program can hold the daemon's port on the other loopback family (a client whose
   * "localhost" resolves to ::1 first would reach it, and hand it the token).
   */
  private async listenOnce(): Promise<number> {
    const primary = this.servers[0] as http.Server;
    await bind(primary, this.host, this.options.port);
    const port = (primary.address() as { port: number }).port;
    if (this.host !== '127.0.0.1') return port;
    const secondary = this.makeServer();
    try {
      await bind(secondary, '::1', port);
      this.servers.push(secondary);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EADDRNOTAVAIL' || code === 'EAFNOSUPPORT') {
        this.options.log.warn('ipv6_loopback_unavailable', { listener: this.options.listener, port, problem: code });
        return port;
      }
      await new Promise<void>((resolve) => primary.close(() => resolve()));
      throw error;
    }
    return port;
  }

  /** makeServer makes one node:http server with every limit and refusal. */
  private makeServer(): http.Server {
    const limits = this.limits;
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
      (request, response) => this.accept(request, response),
    );
    // One field more than the limit, so that the front door sees a request that has too many.
    server.maxHeadersCount = limits.headersCountMax + 1;
    server.maxConnections = limits.connectionsMax;
    server.maxRequestsPerSocket = limits.requestsPerSocketMax;
    server.setTimeout(limits.socketIdleTimeoutMs, (socket: Socket) => socket.destroy());
    server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
      if (error.code === 'ECONNRESET' || !socket.writable) {
        socket.destroy();
        return;
      }
      this.refuseSocket(socket, clientErrorAnswer(error), 'other');
    });
    // An Expect other than 100-continue: Node's own answer would be a bare 417 without the error
    // body or a request id, so the refusal is written here like every other one.
    server.on('checkExpectation', (request: http.IncomingMessage, response: http.ServerResponse) =>
      this.refuseRequest(request, response, invalidRequest('expect', 'Only "Expect: 100-continue" is supported.')),
    );
    // CONNECT carries an authority-form target: never a request for this API.
    server.on('connect', (_request: http.IncomingMessage, socket: Duplex) => this.refuseSocket(socket, new LatchError('forbidden_host'), 'CONNECT'));
    server.on('connection', (socket: Socket) => this.budget.admit(socket));
    // Node closes a connection beyond this server's maxConnections itself, and says so here.
    server.on('drop', () => this.budget.refusals.note());
    return server;
  }

  /** accept takes a request Node has parsed: held at the gate until the daemon is ready, then served. */
  private accept(request: http.IncomingMessage, response: http.ServerResponse): void {
    if (this.closing) response.setHeader('connection', 'close');
    this.inFlight.add(response);
    response.once('close', () => this.inFlight.delete(response));
    this.gate.whenOpen(
      () => this.serve(request, response),
      () => response.destroy(),
    );
  }

  private serve(request: http.IncomingMessage, response: http.ServerResponse): void {
    // The front door answers every failure itself; this catch is the last guard against a bug
    // in writing an answer taking the process down.
    const state = { port: this.boundPort, shutdown: this.shutdown.signal, stopping: this.stopping.signal, headersCountMax: this.limits.headersCountMax };
    this.options.frontDoor(request, response, state).catch(() => response.destroy());
  }

  /**
   * refuseRequest answers a request Node refuses before any handler (an unknown Expect): the same
   * error body, request id and log line, and the connection closes, since its body is not read.
   */
  private refuseRequest(request: http.IncomingMessage, response: http.ServerResponse, error: LatchError): void {
    const requestId = randomId('req');
    request.resume();
    response.setHeader('x-request-id', requestId);
    sendError(response, error, requestId, { close: true });
    this.options.log.info('request', { listener: this.options.listener, method: 'other', route: null, status: error.status, request_id: requestId, code: error.code });
  }

  /** refuseSocket answers on the raw socket where Node has no response object (parse errors, CONNECT). */
  private refuseSocket(socket: Duplex, error: LatchError, event: string): void {
    const requestId = randomId('req');
    writeSocketError(socket, error, requestId);
    this.options.log.info('request', { listener: this.options.listener, method: event, route: null, status: error.status, request_id: requestId, code: error.code });
  }
}

/**
 * ServingGate holds requests until the daemon is ready (its `ready` promise resolves); once open,
 * requests are served without a detour, and if it fails, held requests are dropped.
 */
class ServingGate {
  private open: boolean;

  constructor(private readonly ready: Promise<void> | undefined) {
    this.open = ready === undefined;
    ready?.then(
      () => (this.open = true),
      () => undefined,
    );
  }

  whenOpen(serve: () => void, drop: () => void): void {
    if (this.open || this.ready === undefined) serve();
    else this.ready.then(serve, drop);
  }
}

/** ConnectionBudget counts the open connections of every server of a listener; past the cap, a new one is dropped at once. */
class ConnectionBudget {
  private open = 0;

  constructor(
    private readonly connectionsMax: number,
    readonly refusals: RefusalLog,
  ) {}

  admit(socket: Socket): void {
    // One budget for both families: each server's own maxConnections counts only its sockets.
    this.open++;
    socket.once('close', () => this.open--);
    if (this.open > this.connectionsMax) {
      socket.destroy();
      this.refusals.note();
    }
  }
}

/** RefusalLog logs connections refused at the cap at most once per REFUSAL_LOG_INTERVAL_MS, with how many. */
class RefusalLog {
  private sinceLog = 0;
  private loggedAtMs = -Infinity;

  constructor(
    private readonly options: LocalServerOptions,
    private readonly connectionsMax: number,
  ) {}

  note(): void {
    this.sinceLog++;
    const nowMs = performance.now();
    if (nowMs - this.loggedAtMs < REFUSAL_LOG_INTERVAL_MS) return;
    this.options.log.warn('connections_refused', { listener: this.options.listener, reason: 'connections_max', connections_max: this.connectionsMax, refused: this.sinceLog });
    this.loggedAtMs = nowMs;
    this.sinceLog = 0;
  }
}

function addressOf(server: http.Server): { address: string; port: number } | undefined {
  const address = server.address();
  return address !== null && typeof address === 'object' ? { address: address.address, port: address.port } : undefined;
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

/**
 * How the client talks to the daemon: each request is sent with the caller's token, only to a
 * daemon that has proven it holds this data directory's token, and retried exactly once after a
 * bearer refusal (docs/decisions.md §10). LatchClient's methods are the API; this is the wire.
 */
import { errorFields, parseAnswerJson } from './answer.js';
import { LatchClientError } from './client-errors.js';
import { DaemonVerifier } from './daemon-verification.js';
import { HttpTransport, TransportFailure, type TransportAnswer } from './http-transport.js';
import { TokenSource } from './token-source.js';
import { readPinnedKey, verifyPinnedDaemon } from './pinned-key.js';

/** One call's options. */
export interface CallOptions {
  body?: unknown;
  /** Whether the endpoint needs the bearer token (everything but GET /health). */
  auth?: boolean;
  idempotencyKey?: string;
  /** The Prefer header (RFC 7240), e.g. `wait=30`. */
  prefer?: string;
  /** This call's deadline when it must outlast the default (a held answer). */
  timeoutMs?: number;
  /** A body sent exactly as given (PUT /policy sends the policy file's bytes). */
  rawBody?: string;
  /** The owner passphrase for Latch-Owner-Passphrase; sent only after the pinned key is proved. */
  ownerPassphrase?: string;
}

/** Who the exchange speaks for and where: fixed for a client's life. */
export interface ExchangeConfig {
  home: string;
  /** Where root's pin may be named (LATCH_SYSTEM_PIN); see src/datadir/system-pin.ts. */
  env: NodeJS.ProcessEnv;
  baseUrl: string;
  /** The agent the client calls as, or undefined for the owner. */
  agent: string | undefined;
  userAgent: string;
  timeoutMs: number;
  /**
   * The owner's account of a daemon root pinned elsewhere: the owner calls only with a session,
   * never with a daemon_token file found in this (owner-writable) directory.
   */
  ownerNeedsSession?: boolean;
  /** Opens the owner session such a client needs (asks the passphrase once); see LatchClientOptions.ownerPassphrase. */
  openSession?: () => Promise<void>;
}

const BEARER_CODES: ReadonlySet<string> = new Set(['missing_bearer_token', 'invalid_bearer_token']);

/** DaemonExchange sends the client's requests; see the module comment. */
export class DaemonExchange {
  private readonly tokens: TokenSource;
  private readonly transport: HttpTransport;
  private readonly verifier: DaemonVerifier;
  // The owner session (docs/decisions.md §21): kept in this object's memory only, never on disk.
  private session: string | undefined;
  private pinVerified = false;
  private opening: Promise<void> | undefined;

  constructor(private readonly config: ExchangeConfig) {
    this.tokens = new TokenSource(config.home, config.agent);
    this.transport = new HttpTransport(config.baseUrl);
    this.verifier = new DaemonVerifier(this.transport, config.baseUrl, () => ({ accept: 'application/json', 'user-agent': config.userAgent }), config.timeoutMs, config.agent);
  }

  /** verifyDaemon asks the daemon for its proof with the current token (see LatchClient.verifyDaemon). */
  async verifyDaemon(): Promise<void> {
    await this.verifier.verify(this.tokens.current() ?? this.tokens.reload());
  }

  /**
   * verifyPinnedKey checks that the peer signs a fresh challenge with the daemon key pinned in the
   * data directory (root's pin, else daemon_key.pub, else config.json's key_id); nothing secret is sent. It is
   * remembered for the client's lifetime.
   */
  async verifyPinnedKey(): Promise<void> {
    if (this.pinVerified) return;
    await verifyPinnedDaemon(this.transport, this.config.baseUrl, readPinnedKey(this.config.home, this.config.env), { accept: 'application/json', 'user-agent': this.config.userAgent }, this.config.timeoutMs);
    this.pinVerified = true;
  }

  /** useSession makes later calls present an owner session instead of the token file (undefined: stop). */
  useSession(token: string | undefined): void {
    this.session = token;
  }

  /** hasSession reports whether an owner session is in use. */
  hasSession(): boolean {
    return this.session !== undefined;
  }

  /** close drops idle keep-alive connections. */
  close(): void {
    this.transport.close();
  }

  /**
   * exchange sends a request and, when the daemon refuses the bearer token, reads the token file
   * again and sends the identical request once more (docs/decisions.md §10). The refusal happens at the front
   * door, before any route runs, so the first attempt had no effect and the repeat is safe.
   * A token goes only to a peer that has proven it is this daemon (verifyTokenPeer); after a
   * refusal the proof is asked for again, since a refusal is also what a squatter would answer.
   */
  async exchange(method: string, target: string, options: CallOptions): Promise<TransportAnswer> {
    const auth = options.auth ?? true;
    const bodyText = options.rawBody ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
    if (options.ownerPassphrase !== undefined) await this.verifyPinnedKey();
    if (auth && this.session === undefined && this.config.agent === undefined && this.config.ownerNeedsSession === true && this.config.openSession !== undefined) {
      // The owner of a daemon root pinned elsewhere: one session for this client's calls, and
      // concurrent first calls share it, so the passphrase is asked once.
      this.opening ??= this.config.openSession().finally(() => (this.opening = undefined));
      await this.opening;
    }
    if (auth && this.session !== undefined) {
      // An owner session goes only to the peer that proved the pinned key; it is never retried
      // with the token file: an ended session is an answer for the caller.
      await this.verifyPinnedKey();
      const answer = await this.attempt(method, target, bodyText, this.session, options);
      if (answer.status === 401) this.session = undefined;
      return answer;
    }
    if (auth && this.config.agent === undefined && this.config.ownerNeedsSession === true) {
      throw new LatchClientError({
        code: 'token_unreadable',
        status: null,
        message: `The Latch daemon on this machine runs as its own user (pinned by root); this account calls it as the owner only with an owner session.`,
        remedy: 'Run the latch command from a terminal: it asks for the owner passphrase (or pass --passphrase-stdin). Embedders call openOwnerSession(passphrase) first.',
      });
    }
    const token = auth ? this.tokens.current() : undefined;
    if (token !== undefined) await this.verifyTokenPeer(token, options.idempotencyKey);
    const first = await this.attempt(method, target, bodyText, token, options);
    if (!auth || first.status !== 401 || !BEARER_CODES.has(errorFields(parseAnswerJson(first))?.code ?? '')) return first;
    const reread = this.tokens.reload();
    this.verifier.forget();
    await this.verifyTokenPeer(reread, options.idempotencyKey);
    const second = await this.attempt(method, target, bodyText, reread, options);
    if (second.status === 401 && BEARER_CODES.has(errorFields(parseAnswerJson(second))?.code ?? '')) {
      throw new LatchClientError({
        code: errorFields(parseAnswerJson(second))?.code ?? 'invalid_bearer_token',
        status: 401,
        message: `The daemon refused the token from the ${this.config.agent === undefined ? 'daemon_token file' : `token file of agent "${this.config.agent}"`}, also after reading the file again.`,
        remedy:
          this.config.agent === undefined
            ? `The daemon at ${this.config.baseUrl} probably uses another data directory than ${this.config.home}: run the client with the daemon's LATCH_HOME (or LATCH_URL of the daemon that uses this one).`
            : `The agent "${this.config.agent}" may have been removed (latch agent list shows the agents), or the daemon at ${this.config.baseUrl} uses another data directory than ${this.config.home}.`,
      });
    }
    return second;
  }

  /** verifyTokenPeer is verifyDaemon for a token about to be sent; its errors keep the request's Idempotency-Key. */
  private async verifyTokenPeer(token: string, idempotencyKey: string | undefined): Promise<void> {
    try {
      await this.verifier.verify(token);
    } catch (error) {
      if (error instanceof LatchClientError && idempotencyKey !== undefined) {
        throw new LatchClientError({ code: error.code, status: error.status, message: error.message, remedy: error.remedy, idempotencyKey });
      }
      throw error;
    }
  }

  private async attempt(method: string, target: string, body: string | undefined, token: string | undefined, options: CallOptions): Promise<TransportAnswer> {
    const idempotencyKey = options.idempotencyKey;
    const headers: Record<string, string> = { accept: 'application/json', 'user-agent': this.config.userAgent };
    if (token !== undefined) headers['authorization'] = `Bearer ${token}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (idempotencyKey !== undefined) headers['idempotency-key'] = idempotencyKey;
    if (options.prefer !== undefined) headers['prefer'] = options.prefer;
    if (options.ownerPassphrase !== undefined) headers['latch-owner-passphrase'] = options.ownerPassphrase;
    try {
      return await this.transport.send({ method, target, headers, ...(body !== undefined && { body }), timeoutMs: options.timeoutMs ?? this.config.timeoutMs });
    } catch (error) {
      throw failureToError(error, method, this.config.baseUrl, idempotencyKey);
    }
  }
}

/** failureToError turns a transport failure into the client's error; the token is never part of it. */
function failureToError(error: unknown, method: string, baseUrl: string, idempotencyKey: string | undefined): LatchClientError {
  const extra = idempotencyKey === undefined ? {} : { idempotencyKey };
  if (!(error instanceof TransportFailure)) {
    return new LatchClientError({ code: 'daemon_no_answer', status: null, message: `The request to ${baseUrl} failed unexpectedly.`, ...extra });
  }
  if (error.kind === 'refused') {
    return new LatchClientError({ code: 'daemon_unreachable', status: null, message: `No Latch daemon answers at ${baseUrl} (${error.reason}).`, ...extra });
  }
  if (error.kind === 'too_large') {
    return new LatchClientError({ code: 'invalid_response', status: null, message: 'The daemon\'s answer was larger than any Latch answer can be.', ...extra });
  }
  const reads = method === 'GET' || method === 'HEAD';
  return new LatchClientError({
    code: 'daemon_no_answer',
    status: null,
    message: `The daemon at ${baseUrl} did not answer (${error.reason}).`,
    // A read had no effect, so it may simply be repeated; a write may have taken effect.
    ...(reads && { remedy: 'Check the daemon with latch doctor, then repeat the read.' }),
    ...extra,
  });
}

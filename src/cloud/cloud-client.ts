import { randomInt } from 'node:crypto';
import type { Principal } from '../core/principal.js';
import type { SignatureAudit } from '../core/signature-audit.js';
import { LatchError } from '../errors/latch-error.js';
import { SIGNATURE_SKEW_SECONDS_MAX, type CloudClock } from './cloud-clock.js';
import { cloudOrigin } from './cloud-origin.js';
import type { UpstreamKey } from '../crypto/signing-key.js';
import { followSignals } from '../runtime/follow-signals.js';
import { withoutCardData } from './cloud-card-data.js';

/** Upstream timeout per attempt and overall (docs/decisions.md §13). */
export const UPSTREAM_TIMEOUT_MS = 10_000;
/** At most two retries, and only when they are safe (docs/decisions.md §9). */
export const UPSTREAM_RETRIES_MAX = 2;
const BACKOFF_BASE_MS = 100;
/**
 * The largest cloud answer read, like the proxied request body cap (docs/decisions.md §13): the cloud is
 * outside the trust boundary, and an endless answer must not fill the daemon's memory.
 */
export const CLOUD_RESPONSE_BYTES_MAX = 1024 * 1024;

export interface CloudResponse {
  status: number;
  headers: Headers;
  rawBody: Uint8Array;
}

export interface CloudRequest {
  method: string;
  /** Path and query under the cloud origin, e.g. `/v1/cards?limit=5`. Must start with `/v1/`. */
  pathAndQuery: string;
  body?: Uint8Array;
  contentType?: string;
  /** Extra headers to send (already filtered by the caller). */
  headers?: Record<string, string>;
  idempotencyKey?: string;
  signal?: AbortSignal;
  /**
   * The device key that signs the request: the one the operation resolved (and, for an
   * authorization, signed its window with), or the new key during enrollment, which signs only
   * its own enrollment. The signer signs the enumerated cloud calls only (src/signer/cloud-calls.ts).
   * Without it the device is not enrolled and nothing is sent.
   */
  key?: UpstreamKey;
  /** Who asked, for the audit record of each request signature. */
  caller?: CallerContext;
  /** The window the request carries: recorded with the first attempt's signature, in one line. */
  window?: SignatureAudit;
}

/** The local caller on whose behalf the daemon signs. */
export interface CallerContext {
  requestId: string;
  userAgent: string;
  /** The owner or the agent whose request this is (the audit line's `agent`). */
  principal: Principal;
}

/** What the audit log records of one upstream request signature. */
export interface RequestSignatureRecord {
  method: string;
  path: string;
  keyId: string;
  caller: CallerContext | undefined;
  /**
   * The window signature the request carries, on the first attempt only: one audit line then
   * records both signatures. A retry is a new request signature and carries none.
   */
  window?: SignatureAudit;
}

export interface CloudClientOptions {
  /** The cloud origin, e.g. `https://api.example.com` or `http://127.0.0.1:7000`. */
  cloudUrl: string;
  userAgent: string;
  fetch?: typeof fetch;
  timeoutMs?: number;
  /**
   * Called after each request signature is made and before the request is sent; the request waits
   * for it, so its audit line is on disk first. Required: no signature goes unrecorded by omission
   * (docs/decisions.md §28.6); a test that records nothing says so with `() => undefined`.
   */
  onRequestSigned: (record: RequestSignatureRecord) => void | Promise<void>;
  nowSeconds?: () => number;
  /** Learns the cloud's clock from each answer's Date header (see cloud-clock.ts). */
  clock?: CloudClock;
  /**
   * Asked before each request sent with Node's fetch: throws fetch_unavailable where fetch would
   * crash the process (runtime/wasm-memory.ts's assertFetchCanRun, which the daemon's wiring and
   * the CLI pass; the daemon also asks it once at its start, before anything is bound). Passed in
   * rather than imported: it decides nothing that is signed or recorded (docs/decisions.md §43).
   */
  assertFetchCanRun: () => void;
}

/**
 * CloudClient sends RFC 9421-signed requests to the configured cloud origin only. It never
 * follows redirects, never forwards the local bearer token, and retries only when safe: GET or
 * requests with an idempotency key, on connection failure or 503, at most twice with jittered
 * backoff, all within one overall deadline. Card data in an answer is withheld (cloud-card-data.ts).
 */
export class CloudClient {
  readonly origin: URL;
  private readonly fetchImpl: typeof fetch;
  private readonly timeoutMs: number;
  private readonly nowSeconds: () => number;

  constructor(private readonly options: CloudClientOptions) {
    this.origin = parseCloudOrigin(options.cloudUrl);
    this.fetchImpl = options.fetch ?? fetch;
    this.timeoutMs = options.timeoutMs ?? UPSTREAM_TIMEOUT_MS;
    this.nowSeconds = options.nowSeconds ?? (() => Math.floor(Date.now() / 1000));
  }

  /** send performs one logical request (with safe retries) and returns the cloud's answer. */
  async send(request: CloudRequest): Promise<CloudResponse> {
    // Node's fetch would crash the process where it cannot make its WebAssembly parser (wasm-memory.ts).
    if (this.options.fetch === undefined) this.options.assertFetchCanRun();
    const key = request.key;
    if (key === undefined) throw new LatchError('device_not_enrolled');
    const url = upstreamUrl(this.origin, request.pathAndQuery);
    // The signer signs only the enumerated cloud calls, and stops the daemon on any other (§42): refused here first.
    if (!key.signsCall({ method: request.method, url, body: request.body, contentType: request.contentType, idempotencyKey: request.idempotencyKey })) {
      throw new LatchError('invalid_request', { param: 'path', message: 'This request names a cloud route or an id the device key does not sign for (ids are letters, digits, _ and -); nothing was sent.' });
    }
    const retriable = request.method === 'GET' || request.idempotencyKey !== undefined;
    const deadline = AbortSignal.timeout(this.timeoutMs);
    const followed = request.signal === undefined ? undefined : followSignals([deadline, request.signal]);
    try {
      return await this.sendWithin(request, url, key, retriable, followed?.signal ?? deadline);
    } finally {
      followed?.release();
    }
  }

  /** sendWithin makes the attempts of send until one answers, the retries run out, or signal aborts. */
  private async sendWithin(request: CloudRequest, url: URL, key: UpstreamKey, retriable: boolean, signal: AbortSignal): Promise<CloudResponse> {
    for (let attempt = 0; ; attempt++) {
      const outcome = await this.attempt(request, url, key, signal, attempt === 0 ? request.window : undefined);
      const canRetry = retriable && attempt < UPSTREAM_RETRIES_MAX && !signal.aborted;
      if (outcome.kind === 'response') {
        if (outcome.response.status === 503 && canRetry) {
          await backoff(attempt, signal);
          continue;
        }
        refuseSkewedSignature(outcome.response, this.options.clock);
        return outcome.response;
      }
      if (outcome.kind === 'too_large') {
        throw new LatchError('upstream_unavailable', { status: 502, message: `The cloud API answered with more than ${CLOUD_RESPONSE_BYTES_MAX} bytes.` });
      }
      if (outcome.kind === 'timeout' || signal.aborted) {
        throw new LatchError('upstream_unavailable', { status: 504, message: 'The cloud API did not answer in time.' });
      }
      if (!canRetry) throw new LatchError('upstream_unavailable', { status: 502, message: 'The cloud API could not be reached.' });
      await backoff(attempt, signal);
    }
  }

  private async attempt(
    request: CloudRequest,
    url: URL,
    key: UpstreamKey,
    signal: AbortSignal,
    window: SignatureAudit | undefined,
  ): Promise<{ kind: 'response'; response: CloudResponse } | { kind: 'timeout' } | { kind: 'unreachable' } | { kind: 'too_large' }> {
    const headers: Record<string, string> = {
      ...request.headers,
      accept: 'application/json',
      'user-agent': this.options.userAgent,
      ...key.signUpstream({ method: request.method, url, body: request.body, contentType: request.contentType, idempotencyKey: request.idempotencyKey }, this.nowSeconds()),
    };
    await this.options.onRequestSigned({ method: request.method, path: url.pathname, keyId: key.keyId, caller: request.caller, ...(window !== undefined && { window }) });
    try {
      const response = await this.fetchImpl(url, {
        method: request.method,
        headers,
        body: request.body,
        redirect: 'manual',
        signal,
      });
      this.options.clock?.observe(response.headers.get('date'));
      const rawBody = await readBounded(response, CLOUD_RESPONSE_BYTES_MAX);
      if (rawBody === undefined) return { kind: 'too_large' };
      return { kind: 'response', response: withoutCardData({ status: response.status, headers: response.headers, rawBody }) };
    } catch (error) {
      if (signal.aborted || (error instanceof Error && error.name === 'TimeoutError')) return { kind: 'timeout' };
      return { kind: 'unreachable' };
    }
  }
}

/**
 * parseCloudOrigin accepts what cloudOrigin accepts (the one rule, shared with config.json), or
 * throws invalid_request.
 */
export function parseCloudOrigin(cloudUrl: string): URL {
  const origin = cloudOrigin(cloudUrl);
  if (origin === undefined) {
    throw new LatchError('invalid_request', {
      param: 'cloud_url',
      message: 'cloud_url must be an https origin (no credentials, path, query or fragment); plain http only for 127.0.0.1, localhost or [::1].',
    });
  }
  return new URL(origin);
}

/**
 * upstreamUrl joins the origin with a `/v1/` path. The result must keep the origin and stay under
 * `/v1/`; anything else is refused, so no path trick can reach another host.
 */
export function upstreamUrl(origin: URL, pathAndQuery: string): URL {
  if (!pathAndQuery.startsWith('/v1/') || pathAndQuery.includes('\\') || pathAndQuery.startsWith('//')) {
    throw new LatchError('invalid_request', { param: 'path', message: 'Only paths under /v1/ are forwarded.' });
  }
  const url = new URL(pathAndQuery, origin);
  if (url.origin !== origin.origin || !url.pathname.startsWith('/v1/') || url.hash !== '') {
    throw new LatchError('invalid_request', { param: 'path', message: 'Only paths under /v1/ are forwarded.' });
  }
  return url;
}

/** readBounded reads a response body, or cancels it and returns undefined past bytesMax. */
async function readBounded(response: Response, bytesMax: number): Promise<Uint8Array | undefined> {
  const declared = Number(response.headers.get('content-length') ?? '0');
  if (declared > bytesMax || response.body === null) {
    await response.body?.cancel();
    return declared > bytesMax ? undefined : new Uint8Array(0);
  }
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > bytesMax) {
      await reader.cancel();
      return undefined;
    }
    chunks.push(value);
  }
  return new Uint8Array(Buffer.concat(chunks));
}

async function backoff(attempt: number, signal: AbortSignal): Promise<void> {
  // Full jitter: a random wait up to base * 2^attempt.
  const waitMs = randomInt(0, BACKOFF_BASE_MS * 2 ** attempt + 1);
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, waitMs);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    }, { once: true });
  });
}

/**
 * refuseSkewedSignature turns the cloud's signature_expired into clock_skew when this device's
 * clock is known to be further from the cloud's than request signatures tolerate: the signature
 * was fine, the device's clock is not, and the user needs to hear which.
 */
function refuseSkewedSignature(response: CloudResponse, clock: CloudClock | undefined): void {
  const skew = clock?.skewSeconds();
  if (response.status !== 401 || skew === undefined || Math.abs(skew) <= SIGNATURE_SKEW_SECONDS_MAX) return;
  let code: unknown;
  try {
    code = (JSON.parse(Buffer.from(response.rawBody).toString('utf8')) as { error?: { code?: unknown } }).error?.code;
  } catch {
    return;
  }
  if (code !== 'signature_expired') return;
  throw new LatchError('clock_skew', { message: `The cloud refused the request's signature as out of date: ${(clock as CloudClock).describeSkew()}. Request signatures must be within ${SIGNATURE_SKEW_SECONDS_MAX} s of the cloud's clock.` });
}

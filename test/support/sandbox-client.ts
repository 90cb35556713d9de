/**
 * A small client for the sandbox cloud in tests: raw HTTP over real sockets, RFC 9421 signing
 * with a test device key (the same headers the daemon sends, decisions §6), the admin surface,
 * and helpers that enroll a device and sign policy windows and revocations.
 */
import { HTTP_SIGNATURE_TAG } from '../../src/crypto/signature-purposes.js';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import http, { type IncomingHttpHeaders } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { createSandbox, type Sandbox, type SandboxOptions } from '../../src/sandbox/create-sandbox.js';
import { toBase64Url, utf8 } from '../../src/crypto/base64url.js';
import { contentDigest } from '../../src/crypto/content-digest.js';
import { generateSecretKey, publicKeyOf } from './raw-signing.js';
import { signRequest } from './raw-signing.js';
import { keyIdOf, publicJwk, type Ed25519PublicJwk } from '../../src/crypto/jwk.js';
import { signJwsCompact } from './raw-signing.js';
import { randomId } from '../../src/ids/random-id.js';

/** An answer as received. `body` is the parsed JSON (or undefined when the body is not JSON). */
export interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  body: any;
}

export interface RawRequest {
  method: string;
  /** Path with query, exactly as sent. */
  target: string;
  headers?: Record<string, string>;
  body?: Uint8Array | string;
}

/** send performs one HTTP/1.1 request on a fresh connection and collects the answer. */
export function send(baseUrl: string, request: RawRequest): Promise<Answer> {
  const url = new URL(baseUrl);
  const body = typeof request.body === 'string' ? utf8(request.body) : request.body;
  const headers: Record<string, string> = { ...request.headers };
  if (body !== undefined) headers['content-length'] = String(body.byteLength);
  return new Promise((resolve, reject) => {
    const outgoing = http.request({ host: url.hostname, port: url.port, method: request.method, path: request.target, headers, agent: false }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch {
          parsed = undefined;
        }
        resolve({ status: response.statusCode ?? 0, headers: response.headers, text, body: parsed });
      });
      response.on('error', reject);
    });
    outgoing.on('error', reject);
    outgoing.end(body === undefined ? undefined : Buffer.from(body));
  });
}

/** A device key pair for tests. */
export interface TestKey {
  secretKey: Uint8Array;
  publicKey: Uint8Array;
  keyId: string;
  jwk: Ed25519PublicJwk;
}

/** newTestKey makes a fresh Ed25519 key. */
export function newTestKey(): TestKey {
  const secretKey = generateSecretKey();
  const publicKey = publicKeyOf(secretKey);
  return { secretKey, publicKey, keyId: keyIdOf(publicKey), jwk: publicJwk(publicKey) };
}

/** Overrides of what signedHeaders would normally put in the signature (for adversarial tests). */
export interface SignOptions {
  created?: number;
  expires?: number;
  nonce?: string;
  keyId?: string;
  alg?: string;
  /** The RFC 9421 tag; default the upstream request's (crypto/signature-purposes.ts), null for none. */
  tag?: string | null;
  components?: string[];
  /** Sign with this authority instead of the URL's host:port. */
  authority?: string;
  contentType?: string;
  /** Send this Idempotency-Key, covered by the signature unless `components` says otherwise. */
  idempotencyKey?: string;
}

/**
 * signedHeaders returns the headers the daemon would send for a request: Content-Type and
 * Content-Digest with a body, Idempotency-Key when one is given, Signature-Input and Signature
 * (label `latch`).
 */
export function signedHeaders(baseUrl: string, key: TestKey, method: string, target: string, body: Uint8Array | undefined, options: SignOptions = {}): Record<string, string> {
  const url = new URL(target, baseUrl);
  const headers: Record<string, string> = {};
  const components = options.components ?? ['@method', '@authority', '@path', '@query'];
  if (body !== undefined) {
    headers['content-type'] = options.contentType ?? 'application/json';
    headers['content-digest'] = contentDigest(body);
    if (options.components === undefined) components.push('content-type', 'content-digest');
  }
  if (options.idempotencyKey !== undefined) {
    headers['idempotency-key'] = options.idempotencyKey;
    if (options.components === undefined) components.push('idempotency-key');
  }
  const created = options.created ?? Math.floor(Date.now() / 1000);
  const signed = signRequest(
    { method, authority: options.authority ?? url.host, path: url.pathname, query: url.search.slice(1), headers },
    'latch',
    components,
    { created, expires: options.expires ?? created + 300, keyid: options.keyId ?? key.keyId, alg: options.alg ?? 'ed25519', nonce: options.nonce ?? toBase64Url(randomBytes(16)), ...(options.tag !== null && { tag: options.tag ?? HTTP_SIGNATURE_TAG.upstreamRequest }) },
    key.secretKey,
  );
  return { ...headers, ...signed };
}

/** SignedClient sends signed requests as one device. */
export class SignedClient {
  constructor(
    readonly baseUrl: string,
    readonly key: TestKey,
    readonly deviceId: string,
    readonly accountId: string,
  ) {}

  /** prepare builds the exact request (signed) without sending it, so tests can replay or alter it. */
  prepare(method: string, target: string, json?: unknown, options: { idempotencyKey?: string; sign?: SignOptions } = {}): RawRequest {
    const body = json === undefined ? undefined : utf8(JSON.stringify(json));
    const sign = options.idempotencyKey === undefined ? options.sign : { ...options.sign, idempotencyKey: options.idempotencyKey };
    const headers = signedHeaders(this.baseUrl, this.key, method, target, body, sign);
    return body === undefined ? { method, target, headers } : { method, target, headers, body };
  }

  /** request signs and sends. */
  request(method: string, target: string, json?: unknown, options: { idempotencyKey?: string; sign?: SignOptions } = {}): Promise<Answer> {
    return send(this.baseUrl, this.prepare(method, target, json, options));
  }

  /** signJws signs a payload as this device (EdDSA, kid = key id). */
  signJws(payload: object): string {
    return signJwsCompact(payload, this.key.keyId, this.key.secretKey);
  }

  /** windowPayload builds a card policy window payload; times default to now … now + 30 min. */
  windowPayload(overrides: Record<string, unknown> & { nowSeconds?: number } = {}): Record<string, unknown> {
    const { nowSeconds, ...rest } = overrides;
    const now = nowSeconds ?? Math.floor(Date.now() / 1000);
    return {
      v: 1,
      typ: 'card_policy_window',
      policy_id: randomId('pw'),
      device_id: this.deviceId,
      merchant: 'shop.example.com',
      amount: '12.50',
      currency: 'USD',
      authorization_type: 'exact',
      kind: 'one_time',
      not_before: now,
      not_after: now + 1800,
      nonce: toBase64Url(randomBytes(16)),
      iat: now,
      ...rest,
    };
  }

  /** authorize signs a card window and submits it to POST /v1/authorizations. */
  authorize(overrides: Record<string, unknown> & { nowSeconds?: number } = {}, options: { idempotencyKey?: string } = {}): Promise<Answer> {
    return this.request('POST', '/v1/authorizations', { jws: this.signJws(this.windowPayload(overrides)) }, options);
  }

  /** revoke signs a revocation of policyId and submits it. */
  revoke(policyId: string, overrides: Record<string, unknown> = {}): Promise<Answer> {
    const payload = { v: 1, typ: 'revocation', policy_id: policyId, device_id: this.deviceId, nonce: toBase64Url(randomBytes(16)), iat: Math.floor(Date.now() / 1000), ...overrides };
    return this.request('POST', `/v1/authorizations/${policyId}/revoke`, { jws: this.signJws(payload) });
  }
}

/** AdminClient calls the sandbox-only endpoints with the admin key. */
export class AdminClient {
  constructor(
    readonly baseUrl: string,
    private readonly adminKey: string,
  ) {}

  /** request sends an admin request (JSON body when given). */
  request(method: string, target: string, json?: unknown, options: { idempotencyKey?: string; adminKey?: string | null } = {}): Promise<Answer> {
    const headers: Record<string, string> = {};
    const key = options.adminKey === undefined ? this.adminKey : options.adminKey;
    if (key !== null) headers['authorization'] = `Bearer ${key}`;
    if (options.idempotencyKey !== undefined) headers['idempotency-key'] = options.idempotencyKey;
    if (json !== undefined) headers['content-type'] = 'application/json';
    return send(this.baseUrl, json === undefined ? { method, target, headers } : { method, target, headers, body: JSON.stringify(json) });
  }

  /** setupToken creates a setup token (and a new account when accountId is omitted). */
  async setupToken(accountId?: string, lifetimeSeconds?: number): Promise<{ setup_token: string; account_id: string; expires_at: string }> {
    const body: Record<string, unknown> = {};
    if (accountId !== undefined) body['account_id'] = accountId;
    if (lifetimeSeconds !== undefined) body['lifetime_seconds'] = lifetimeSeconds;
    return expectOk(await this.request('POST', '/v1/sandbox/setup-tokens', body));
  }

  /** card creates a card with a starting balance. */
  async card(accountId: string, balance = '100.00', dailyLimit = '1000.00'): Promise<{ card_id: string }> {
    return expectOk(await this.request('POST', '/v1/sandbox/cards', { account_id: accountId, label: 'Test card', balance, daily_limit: dailyLimit }));
  }

  /** charge sends an incoming card-network charge. */
  charge(cardId: string, merchant: string, amount: string, currency = 'USD'): Promise<Answer> {
    return this.request('POST', '/v1/sandbox/charges', { card_id: cardId, merchant, amount, currency });
  }

  /** advance moves the ledger clock forward. */
  async advance(seconds: number): Promise<void> {
    expectOk(await this.request('POST', '/v1/sandbox/clock', { advance_seconds: seconds }));
  }

  /** ledgerNow returns the sandbox's ledger clock (Unix seconds), which POST /v1/sandbox/clock moves. */
  async ledgerNow(): Promise<number> {
    return Date.parse((await this.state())['now'] as string) / 1000;
  }

  /** state returns the full dump. */
  async state(): Promise<Record<string, unknown>> {
    return expectOk(await this.request('GET', '/v1/sandbox/state'));
  }
}

/** enrollDevice enrolls a fresh key with a new setup token (a new account unless accountId is given). */
export async function enrollDevice(admin: AdminClient, accountId?: string): Promise<SignedClient> {
  const token = await admin.setupToken(accountId);
  const key = newTestKey();
  const body = { setup_token: token.setup_token, public_key: key.jwk, name: 'test device' };
  const answer = await send(admin.baseUrl, { method: 'POST', target: '/v1/devices', headers: signedHeaders(admin.baseUrl, key, 'POST', '/v1/devices', utf8(JSON.stringify(body))), body: JSON.stringify(body) });
  const enrolled = expectOk(answer) as { device_id: string; account_id: string };
  return new SignedClient(admin.baseUrl, key, enrolled.device_id, enrolled.account_id);
}

function expectOk<T = any>(answer: Answer): T {
  if (answer.status >= 300) throw new Error(`expected success, got ${answer.status} ${answer.text}`);
  return answer.body as T;
}

/** A sandbox on an ephemeral port in a fresh temporary directory, with its admin client. */
export interface RunningSandbox {
  sandbox: Sandbox;
  admin: AdminClient;
  dataDir: string;
  /** restart closes the sandbox and starts it again on the same data directory and port (journal replay). */
  restart(): Promise<RunningSandbox>;
  /** stop closes the sandbox and removes its directory. */
  stop(): Promise<void>;
}

/** startSandbox starts a sandbox for a test; call stop() in an after hook. */
export async function startSandbox(options: Partial<SandboxOptions> = {}, dataDir?: string, port = 0): Promise<RunningSandbox> {
  const root = dataDir ?? path.join(mkdtempSync(path.join(os.tmpdir(), 'latch-sandbox-')), 'sandbox');
  const sandbox = await createSandbox({ ...options, dataDir: root, port, host: '127.0.0.1' });
  const running: RunningSandbox = {
    sandbox,
    admin: new AdminClient(sandbox.url, sandbox.adminKey),
    dataDir: root,
    // Same port, so signatures made for the old address (@authority) stay valid across the restart.
    restart: async () => {
      await sandbox.close();
      return startSandbox(options, root, sandbox.port);
    },
    stop: async () => {
      await sandbox.close();
      rmSync(path.dirname(root), { recursive: true, force: true });
    },
  };
  return running;
}

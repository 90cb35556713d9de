import { AgentNameError, validAgentName } from '../datadir/agents.js';
import { resolveHome } from '../datadir/home.js';
import { randomId } from '../ids/random-id.js';
import { latchVersion } from '../version.js';
import { expectShape, interpretAnswer } from './answer.js';
import { resolveDaemonUrl } from './base-url.js';
import { readListenFile } from '../datadir/listen-file.js';
import type { SystemPin } from '../datadir/system-pin.js';
import { systemDaemonOf } from './system-daemon.js';
import { pinnedKeyPath } from './pinned-key.js';
import { tokenPath } from '../datadir/token.js';
import { existsSync } from 'node:fs';
import { LatchClientError } from './client-errors.js';
import { DaemonExchange, type CallOptions } from './daemon-exchange.js';
import { isConsoleLoginUrl } from './console-link.js';
import { isPendingApproval } from './pending-approval.js';
import type {
  Ap2MandateInput,
  Ap2Mandates,
  AccountWindowInput,
  AllocateInput,
  Allocation,
  Approval,
  ApprovalList,
  ApprovalQuery,
  ApproveInput,
  Authorization,
  AuthorizeInput,
  ApprovalOptions,
  AuthorizeOptions,
  DenyInput,
  PendingApproval,
  X402Authorization,
  X402AuthorizeInput,
  CardDetail,
  CardList,
  Health,
  MerchantBindInput,
  OwnedAuthorization,
  PolicyCheck,
  PolicyCheckInput,
  PolicyView,
  ProxyAnswer,
  RecurringInput,
  RevocationInput,
  SignWebRequestInput,
  SignedPolicyWindow,
  SignedRevocation,
  TransactionDetail,
  TransactionPage,
  TransactionQuery,
  Wallet,
  WebRequestSignature,
  WriteOptions,
} from './types.js';

/** How long one call may take by default: above the daemon's own upstream deadline and retries. */
export const DEFAULT_CALL_TIMEOUT_MS = 60_000;

export interface LatchClientOptions {
  /** The data directory holding daemon_token; default LATCH_HOME, else ~/.latch. */
  home?: string;
  /** The daemon's origin; default LATCH_URL, else http://127.0.0.1:7723. Loopback http only. */
  baseUrl?: string;
  /** Where LATCH_HOME and LATCH_URL are read from; default process.env. */
  env?: NodeJS.ProcessEnv;
  /** The deadline of one call (both attempts of an auth retry together count once each). */
  timeoutMs?: number;
  /** The User-Agent the daemon writes into audit.log for each signature. */
  userAgent?: string;
  /**
   * Call as this agent: present `<home>/agents/NAME.token` instead of daemon_token (which is then
   * never read). Default LATCH_AGENT; empty means the owner.
   */
  agent?: string;
  /**
   * Where the owner passphrase comes from when this client, as the owner of a daemon root pinned
   * elsewhere (the separate-user setup), must open a session before its first call: asked once,
   * and the session is ended by close(). Without it such a client must call openOwnerSession first.
   */
  ownerPassphrase?: () => Promise<string>;
}


/** The longest `Prefer: wait` the daemon honours (docs/decisions.md §15.4). */
export const APPROVAL_WAIT_SECONDS_MAX = 60;
// A held answer may take the whole wait; the call's deadline leaves room for signing after it.
export const WAIT_MARGIN_MS = 30_000;

/**
 * LatchClient is the typed client of the daemon's Variant A API, used by the CLI and the MCP
 * bridge and importable by embedders. Its rules (docs/decisions.md §10, §7):
 *
 * - the token comes only from `<home>/daemon_token`; on 401 missing_bearer_token or
 *   invalid_bearer_token the file is read again and the identical request (same body, same
 *   Idempotency-Key) is sent exactly once more;
 * - nothing else is ever retried, and no failure ever leads to another merchant, a larger amount
 *   or a longer TTL: a new scope is a new authorization that needs the user's approval;
 * - every failure is a LatchClientError with a stable `code` and the table's `remedy`.
 *
 * @example
 *   import { isPendingApproval, LatchClient } from 'latch';
 *   const latch = new LatchClient();
 *   const auth = await latch.authorize({ card_id: 'card_…', amount: '12.50', merchant_name: 'shop.example.com' });
 *   if (isPendingApproval(auth)) console.log('waiting for the owner:', auth.approval_id);
 *   else console.log(auth.policy_id, auth.expires_at);
 *   latch.close();
 */
export class LatchClient {
  readonly home: string;
  readonly baseUrl: string;
  /** The agent this client calls as, or undefined for the owner (the daemon token). */
  readonly agent: string | undefined;
  /**
   * Root's pin when this client's data directory is not the pinned daemon's (the separate-user
   * setup, seen from the owner's account): the owner then calls only with a session.
   */
  readonly systemDaemon: SystemPin | undefined;
  private readonly timeoutMs: number;
  private readonly wire: DaemonExchange;

  constructor(options: LatchClientOptions = {}) {
    const env = options.env ?? process.env;
    this.home = options.home ?? resolveHome(env);
    this.systemDaemon = systemDaemonOf(this.home, env);
    // Root's pin names the address; the owner's listen.json is anyone-as-the-owner's to rewrite.
    const pinnedUrl = this.systemDaemon === undefined ? undefined : (this.systemDaemon.url ?? '');
    this.baseUrl = resolveDaemonUrl(options.baseUrl, env, () => (pinnedUrl === undefined ? listeningUrl(this.home) : pinnedUrl === '' ? undefined : pinnedUrl));
    this.timeoutMs = options.timeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
    this.agent = resolveAgent(options.agent, env);
    const userAgent = options.userAgent ?? `latch-client/${latchVersion()}`;
    const ask = options.ownerPassphrase;
    this.wire = new DaemonExchange({
      home: this.home,
      env,
      baseUrl: this.baseUrl,
      agent: this.agent,
      userAgent,
      timeoutMs: this.timeoutMs,
      // Root's pin, or (the hand-pinned route of §21.7) a pinned key here and no daemon token.
      ownerNeedsSession: this.systemDaemon !== undefined || (existsSync(pinnedKeyPath(this.home)) && !existsSync(tokenPath(this.home))),
      ...(ask !== undefined && { openSession: async () => void (await this.openOwnerSession(await ask())) }),
    });
  }

  /**
   * verifyDaemon checks that the program on the daemon's address proves it holds the token of
   * this data directory (the Latch-Challenge / Latch-Proof exchange on GET /health). Every call
   * that sends the token does this first; doctor calls it on its own to report the result.
   */
  async verifyDaemon(): Promise<void> {
    await this.wire.verifyDaemon();
  }

  /**
   * verifyPinnedKey checks that the peer signs a fresh challenge with the daemon key pinned in
   * this data directory (root's pin, else daemon_key.pub, else config.json's key_id); nothing secret is sent. Every
   * call that sends a passphrase or a session does this first; it is remembered for the client's
   * lifetime.
   */
  async verifyPinnedKey(): Promise<void> {
    await this.wire.verifyPinnedKey();
  }

  /**
   * openOwnerSession proves the daemon against the pinned key, then trades the passphrase for an
   * owner session (POST /owner/sessions), which this client then presents instead of the daemon
   * token: the owner with presence, for up to an hour (300 s idle). It lives in memory only.
   */
  async openOwnerSession(passphrase: string): Promise<{ expires_at: string }> {
    await this.verifyPinnedKey();
    const answer = await this.call('POST', '/owner/sessions', { auth: false, body: { passphrase } });
    const token = answer['token'];
    if (typeof token !== 'string' || !token.startsWith('los_')) throw new LatchClientError({ code: 'invalid_response', status: 201, message: 'The daemon answered without an owner session.' });
    this.wire.useSession(token);
    return { expires_at: String(answer['expires_at']) };
  }

  /** hasOwnerSession reports whether this client holds an owner session. */
  hasOwnerSession(): boolean {
    return this.wire.hasSession();
  }

  /** endOwnerSession ends the owner session this client holds (DELETE /owner/sessions/current). */
  async endOwnerSession(): Promise<void> {
    if (!this.wire.hasSession()) return;
    try {
      await this.call('DELETE', '/owner/sessions/current');
    } finally {
      this.wire.useSession(undefined);
    }
  }

  /** pause pulls the brake through the API (POST /pause; the owner's token or session). */
  async pause(reason?: string): Promise<Record<string, unknown>> {
    return this.call('POST', '/pause', { body: reason === undefined ? {} : { reason } });
  }

  /** resume releases the brake (POST /resume): the owner with presence once a passphrase is set. */
  async resume(): Promise<Record<string, unknown>> {
    return this.call('POST', '/resume', { body: {} });
  }

  /**
   * putPolicy replaces policy.json with exactly text (PUT /policy); the daemon validates it like
   * the file. The passphrase, when given, goes in Latch-Owner-Passphrase after the pinned key is proved.
   */
  async putPolicy(
    text: string,
    options: { passphrase?: string } = {},
  ): Promise<{ sha256: string; previous_sha256: string | null; warnings?: Array<{ field: string; id: string; message: string }> }> {
    if (options.passphrase !== undefined) await this.verifyPinnedKey();
    const answer = await this.call('PUT', '/policy', { rawBody: text, ...(options.passphrase !== undefined && { ownerPassphrase: options.passphrase }) });
    return expectShape(answer, ['sha256']);
  }

  /** addAgent creates an agent through the API; the answer is the only time its token is shown. */
  async addAgent(name: string, options: { passphrase?: string } = {}): Promise<{ name: string; token: string; created_at: string; identity_key_id?: string | null }> {
    if (options.passphrase !== undefined) await this.verifyPinnedKey();
    return expectShape(await this.call('POST', '/agents', { body: { name, ...(options.passphrase !== undefined && { passphrase: options.passphrase }) } }), ['name', 'token', 'created_at']);
  }

  /** listAgents is GET /agents (never tokens). */
  async listAgents(): Promise<{ agents: Array<{ name: string; created_at: string; last_used_at: string | null; identity_key_id?: string | null }>; has_more: boolean }> {
    return expectShape(await this.call('GET', '/agents'), ['agents', 'has_more']);
  }

  /** rotateAgent gives an agent a new token through the API and returns it. */
  async rotateAgent(name: string): Promise<{ name: string; token: string }> {
    return expectShape(await this.call('POST', `/agents/${encodeURIComponent(name)}/rotate`, { body: {} }), ['name', 'token']);
  }

  /** removeAgent deletes an agent through the API; with revoke, its active authorizations too. */
  async removeAgent(name: string, options: { revoke?: boolean } = {}): Promise<void> {
    await this.call('DELETE', `/agents/${encodeURIComponent(name)}${options.revoke === true ? '?revoke=true' : ''}`);
  }

  /** health is GET /health: local availability and the loaded signing key; no token needed. */
  async health(): Promise<Health> {
    return expectShape(await this.call('GET', '/health', { auth: false }), ['status', 'version', 'signing_key']);
  }

  /** cards lists the account's cards (safe metadata only). */
  async cards(): Promise<CardList> {
    return expectShape(await this.call('GET', '/cards'), ['cards']);
  }

  /** card returns one card with its daily limit. */
  async card(cardId: string): Promise<CardDetail> {
    return expectShape(await this.call('GET', `/cards/${encodeURIComponent(cardId)}`), ['card_id', 'balance']);
  }

  /**
   * authorize creates a scoped authorization: this card, this merchant, at most (or exactly) this
   * amount, for ttl_minutes. When the spending policy asks the owner first, the daemon answers
   * 202 and this returns the PendingApproval (tell them apart with isPendingApproval): that is
   * not a failure, and the caller must not retry with other terms.
   */
  async authorize(input: AuthorizeInput, options: AuthorizeOptions = {}): Promise<Authorization | PendingApproval> {
    return this.writeOrAsk('/authorize', input, options);
  }

  /** merchantBind creates a server-capped merchant-verification authorization (amount at most 1.00), or returns the pending approval. */
  async merchantBind(input: MerchantBindInput, options: AuthorizeOptions = {}): Promise<Authorization | PendingApproval> {
    return this.writeOrAsk('/merchant-bind', input, options);
  }

  /** recurring creates a recurring subscription authorization (one approved charge per period), or returns the pending approval. */
  async recurring(input: RecurringInput, options: AuthorizeOptions = {}): Promise<Authorization | PendingApproval> {
    return this.writeOrAsk('/recurring', input, options);
  }

  /**
   * ap2Mandate asks for AP2 open mandates (POST /ap2/mandates): Latch signs them as the trusted
   * surface, bound to the agent's key, once the policy allows; or returns the pending approval.
   */
  async ap2Mandate(input: Ap2MandateInput, options: AuthorizeOptions = {}): Promise<Ap2Mandates | PendingApproval> {
    return this.writeOrAsk('/ap2/mandates', input, options, ['policy_id', 'mandate_id', 'open_checkout_mandate', 'open_payment_mandate']);
  }

  /**
   * x402Authorize asks the daemon to authorize one x402 payment (POST /x402/authorize, docs/x402.md):
   * the authorization with its receipt, or the pending approval.
   */
  async x402Authorize(input: X402AuthorizeInput | Record<string, unknown>, options: AuthorizeOptions = {}): Promise<X402Authorization | PendingApproval> {
    return this.writeOrAsk('/x402/authorize', input, options, ['authorization_id', 'status']);
  }

  /** x402Bind binds the payment payload made for an authorization before it is sent. */
  async x402Bind(id: string, input: { accepted: unknown; payload_sha256: string }, options: WriteOptions = {}): Promise<X402Authorization> {
    return expectShape(await this.write(`/x402/authorizations/${encodeURIComponent(id)}/payload`, input, options), ['authorization_id', 'status']);
  }

  /** x402Settlement reports what became of a bound payment: x402's SettleResponse, or an outcome. */
  async x402Settlement(id: string, input: { settle_response: Record<string, unknown> } | { outcome: 'verify_failed' | 'transport_error' }, options: WriteOptions = {}): Promise<X402Authorization> {
    return expectShape(await this.write(`/x402/authorizations/${encodeURIComponent(id)}/settlement`, input, options), ['authorization_id', 'status']);
  }

  /** x402Release gives an unbound authorization's reservation back. */
  async x402Release(id: string, options: WriteOptions = {}): Promise<X402Authorization> {
    return expectShape(await this.write(`/x402/authorizations/${encodeURIComponent(id)}/release`, {}, options), ['authorization_id', 'status']);
  }

  /** x402Assets lists the x402 assets that count (GET /x402/assets). */
  async x402Assets(): Promise<{ assets: Array<{ network: string; asset: string; symbol: string; decimals: number; counts_as: string }> }> {
    return expectShape(await this.call('GET', '/x402/assets'), ['assets']);
  }

  /** approvals lists approvals, newest first (an agent's client sees only its own); filter with status. */
  async approvals(query: ApprovalQuery = {}): Promise<ApprovalList> {
    return expectShape(await this.call('GET', withQuery('/approvals', query)), ['approvals', 'has_more']);
  }

  /**
   * approval returns one approval and its state: pending, approved (with the authorization),
   * denied, expired or failed. With waitSeconds (0..60) the daemon holds its answer up to that
   * long for the owner's decision (`Prefer: wait=N`); 0 answers at once.
   */
  async approval(approvalId: string, options: ApprovalOptions = {}): Promise<Approval> {
    const wait = options.waitSeconds;
    if (wait !== undefined && (!Number.isInteger(wait) || wait < 0 || wait > APPROVAL_WAIT_SECONDS_MAX)) {
      throw new LatchClientError({ code: 'invalid_request', status: null, param: 'waitSeconds', message: `waitSeconds must be a whole number from 0 to ${APPROVAL_WAIT_SECONDS_MAX}.` });
    }
    const held = wait === undefined || wait === 0 ? {} : { prefer: `wait=${wait}`, timeoutMs: Math.max(this.timeoutMs, wait * 1000 + WAIT_MARGIN_MS) };
    return expectShape(await this.call('GET', `/approvals/${encodeURIComponent(approvalId)}`, held), APPROVAL_FIELDS);
  }

  /**
   * approve signs and registers exactly the stored request (the owner's token only). The
   * passphrase, when one is set, goes in the body and nowhere else: no error carries it.
   */
  async approve(approvalId: string, input: ApproveInput = {}, options: WriteOptions = {}): Promise<Approval> {
    // Never send a secret to an unproven peer (owner-presence §2).
    if (input.passphrase !== undefined) await this.verifyPinnedKey();
    const body = input.passphrase === undefined ? {} : { passphrase: input.passphrase };
    return expectShape(await this.write(`/approvals/${encodeURIComponent(approvalId)}/approve`, body, options), APPROVAL_FIELDS);
  }

  /** deny refuses an approval; the reason, if any, is what the agent is told. */
  async deny(approvalId: string, input: DenyInput = {}, options: WriteOptions = {}): Promise<Approval> {
    const body = input.reason === undefined ? {} : { reason: input.reason };
    return expectShape(await this.write(`/approvals/${encodeURIComponent(approvalId)}/deny`, body, options), APPROVAL_FIELDS);
  }

  /** signPolicyWindow signs an account-wide window and submits nothing. */
  async signPolicyWindow(input: AccountWindowInput): Promise<SignedPolicyWindow> {
    return expectShape(await this.call('POST', '/sign-policy-window', { body: input }), ['policy_window', 'jws', 'key_id']);
  }

  /** signCardPolicyWindow signs what /authorize would submit, and submits nothing. */
  async signCardPolicyWindow(input: AuthorizeInput): Promise<SignedPolicyWindow> {
    return expectShape(await this.call('POST', '/sign-card-policy-window', { body: input }), ['policy_window', 'jws', 'key_id']);
  }

  /** signRevocation signs a revocation of a policy window and submits nothing (a primitive; revoke() is how to revoke). */
  async signRevocation(input: RevocationInput): Promise<SignedRevocation> {
    return expectShape(await this.call('POST', '/sign-revocation', { body: input }), ['revocation', 'jws', 'key_id']);
  }

  /**
   * authorizations lists the authorizations this device signed, newest first, each with the
   * `agent` that asked for it (an agent's client sees only its own).
   */
  async authorizations(query: { limit?: number; starting_after?: string; status?: string; card_id?: string; agent?: string; kind?: string } = {}): Promise<{ authorizations: OwnedAuthorization[]; has_more: boolean }> {
    return expectShape(await this.call('GET', withQuery('/authorizations', query)), ['authorizations', 'has_more']);
  }

  /**
   * revoke revokes one of the caller's authorizations before it is used: POST
   * /authorizations/:policy_id/cancel, where the daemon signs the revocation, submits it and
   * releases the budget it held at once (docs/decisions.md §18.2). It works for the owner and
   * for an agent (its own authorizations). A second revoke of the same authorization succeeds
   * and returns it as it is; a used or expired one is refused (authorization_not_active).
   */
  async revoke(input: RevocationInput, options: WriteOptions = {}): Promise<OwnedAuthorization> {
    const target = `/authorizations/${encodeURIComponent(input.policy_id)}/cancel`;
    const body = input.reason === undefined ? {} : { reason: input.reason };
    return expectShape(await this.write(target, body, options), ['policy_id', 'status', 'agent']);
  }

  /**
   * evidence returns one authorization's evidence pack as the daemon signed it: the exact text, so
   * that what is saved verifies (docs/evidence.md; verifyEvidence checks it offline).
   */
  async evidence(policyId: string): Promise<string> {
    const answer = await this.wire.exchange('GET', `/authorizations/${encodeURIComponent(policyId)}/evidence`, {});
    expectShape(interpretAnswer(answer, undefined), ['policy_id', 'jws']);
    return answer.text;
  }

  /** policy is GET /policy (owner only): the effective spending policy, its SHA-256 and source. */
  async policy(): Promise<PolicyView> {
    return expectShape(await this.call('GET', '/policy'), ['policy', 'sha256', 'source']);
  }

  /**
   * keyDirectory is GET /web-bot-auth/directory: the agents' Web Bot Auth key directory as the
   * daemon serves it (public), after the daemon proved the pinned key, so the document is its own.
   */
  async keyDirectory(): Promise<string> {
    await this.verifyPinnedKey();
    const answer = await this.wire.exchange('GET', '/web-bot-auth/directory', { auth: false });
    expectShape(interpretAnswer(answer, undefined), ['keys']);
    return answer.text;
  }

  /** identityKey is GET /web-bot-auth/keys/:name (owner only): one holder's identity key id and public JWK. */
  async identityKey(name: string): Promise<{ name: string; key_id: string; jwk: { kid: string } }> {
    return expectShape(await this.call('GET', `/web-bot-auth/keys/${encodeURIComponent(name)}`), ['name', 'key_id', 'jwk']);
  }

  /** auditRecords is GET /audit (owner only): the latest `limit` lines of the daemon's audit.log, as they are in the file. */
  async auditRecords(limit: number): Promise<{ records: Array<Record<string, unknown>>; has_more: boolean }> {
    return expectShape(await this.call('GET', withQuery('/audit', { limit })), ['records', 'has_more']);
  }

  /** verifyAudit is GET /audit/verify (owner only): the daemon checks its audit.log's hash chain. */
  async verifyAudit(): Promise<{ ok: boolean; lines: number; problem: { line: number; reason: string } | null }> {
    return expectShape(await this.call('GET', '/audit/verify'), ['ok', 'lines', 'problem']);
  }

  /** consoleLoginLink makes a one-time login link to the owner console (the owner only). */
  async consoleLoginLink(): Promise<{ url: string; expires_at: string }> {
    const link = expectShape<{ url: string; expires_at: string }>(await this.write('/console/login-code', {}, {}), ['url', 'expires_at']);
    // It is written into a page the browser opens: only a console link on this machine is taken.
    if (!isConsoleLoginUrl(link.url)) throw new LatchClientError({ code: 'invalid_response', status: 201, message: 'The daemon answered a login link that is not http://localhost:PORT/login#CODE; nothing was written or opened.' });
    return link;
  }

  /** checkPolicy asks what the spending policy would decide about a request; nothing is signed. */
  async checkPolicy(input: PolicyCheckInput): Promise<PolicyCheck> {
    return expectShape(await this.call('POST', '/policy/check', { body: input }), ['decision', 'rule', 'reasons', 'budgets']);
  }

  /** transactions lists transactions, newest first, with has_more and a starting_after cursor. */
  async transactions(query: TransactionQuery = {}): Promise<TransactionPage> {
    return expectShape(await this.call('GET', withQuery('/transactions', query)), ['transactions', 'has_more']);
  }

  /** transaction returns one transaction with the signed policy window it was made under. */
  async transaction(txId: string): Promise<TransactionDetail> {
    return expectShape(await this.call('GET', `/transactions/${encodeURIComponent(txId)}`), ['id', 'amount']);
  }

  /** wallet returns the wallet balance: usdt, allocated, available. */
  async wallet(): Promise<Wallet> {
    return expectShape(await this.call('GET', '/wallet/balance'), ['usdt', 'allocated', 'available']);
  }

  /**
   * signWebRequest asks for the Web Bot Auth (or Visa TAP) signature headers of a request the
   * caller is about to send, made with its own identity key (docs/agent-identity.md).
   */
  async signWebRequest(input: SignWebRequestInput): Promise<WebRequestSignature> {
    return expectShape(await this.call('POST', '/web-bot-auth/sign', { body: input }), ['headers', 'key_id', 'created', 'expires']);
  }

  /** allocate moves wallet funds to a card. */
  async allocate(input: AllocateInput, options: WriteOptions = {}): Promise<Allocation> {
    return expectShape(await this.write('/wallet/allocate', input, options), ['card_id', 'allocated', 'new_balance']);
  }

  /**
   * proxy sends any request under /v1/ to the cloud through the daemon's signing proxy and
   * returns the cloud's status and JSON body. A request that is not a GET carries an
   * Idempotency-Key (made here when absent). Error answers throw like every other call.
   */
  async proxy(method: string, path: string, body?: unknown, options: WriteOptions = {}): Promise<ProxyAnswer> {
    const verb = method.toUpperCase();
    if (!/^[A-Z]{1,16}$/.test(verb)) throw new LatchClientError({ code: 'invalid_request', status: null, param: 'method', message: 'method must be an HTTP method name.' });
    if (!path.startsWith('/v1/') || /[\s\u0000-\u001f\u007f#]/.test(path)) {
      throw new LatchClientError({ code: 'invalid_request', status: null, param: 'path', message: 'path must start with /v1/ and contain no spaces, control characters or fragment.' });
    }
    const reads = verb === 'GET' || verb === 'HEAD';
    const idempotencyKey = reads ? options.idempotencyKey : (options.idempotencyKey ?? randomId('idem'));
    const result = await this.wire.exchange(verb, path, { ...(body !== undefined && { body }), ...(idempotencyKey !== undefined && { idempotencyKey }) });
    return { status: result.status, body: interpretAnswer(result, idempotencyKey) };
  }

  /** close drops idle keep-alive connections; the client stays usable and reconnects on the next call. */
  close(): void {
    // A session opened for this client's calls ends with it (the daemon would end it when idle).
    if (this.wire.hasSession()) {
      void this.endOwnerSession()
        .catch(() => undefined)
        .finally(() => this.wire.close());
      return;
    }
    this.wire.close();
  }

  /**
   * writeOrAsk sends a POST that the policy may hold for the owner: 202 is the pending approval,
   * any other success the authorization. With waitSeconds the daemon holds the answer.
   */
  private async writeOrAsk<T = Authorization>(target: string, body: object, options: AuthorizeOptions, fields: readonly string[] = ['policy_id', 'amount']): Promise<T | PendingApproval> {
    const idempotencyKey = options.idempotencyKey ?? randomId('idem');
    const wait = options.waitSeconds;
    if (wait !== undefined && (!Number.isInteger(wait) || wait < 1 || wait > APPROVAL_WAIT_SECONDS_MAX)) {
      throw new LatchClientError({ code: 'invalid_request', status: null, param: 'waitSeconds', message: `waitSeconds must be a whole number from 1 to ${APPROVAL_WAIT_SECONDS_MAX}.` });
    }
    const held = wait === undefined ? {} : { prefer: `wait=${wait}`, timeoutMs: Math.max(this.timeoutMs, wait * 1000 + WAIT_MARGIN_MS) };
    const answer = await this.wire.exchange('POST', target, { body, idempotencyKey, ...held });
    const result = interpretAnswer(answer, idempotencyKey);
    if (answer.status !== 202) return expectShape<T>(result, fields);
    const pending = expectShape<PendingApproval>(result, APPROVAL_FIELDS);
    if (!isPendingApproval(pending)) throw new LatchClientError({ code: 'invalid_response', status: 202, message: 'The daemon answered 202 without a pending approval.', idempotencyKey });
    return pending;
  }

  private write(target: string, body: object, options: WriteOptions): Promise<Record<string, unknown>> {
    return this.call('POST', target, { body, idempotencyKey: options.idempotencyKey ?? randomId('idem') });
  }

  private async call(method: string, target: string, options: CallOptions = {}): Promise<Record<string, unknown>> {
    const answer = await this.wire.exchange(method, target, options);
    // 204 No Content (ending a session, removing an agent) has no body to read.
    if (answer.status === 204) return {};
    return interpretAnswer(answer, options.idempotencyKey);
  }
}

/** withQuery appends the defined members of query to path as a query string. */
function withQuery(path: string, query: object): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined) params.set(name, String(value));
  const text = params.toString();
  return text === '' ? path : `${path}?${text}`;
}

/** The fields every approval object has; an answer without them is not the Latch API. */
const APPROVAL_FIELDS: readonly string[] = ['approval_id', 'status', 'agent', 'request', 'expires_at'];

/**
 * resolveAgent picks the agent a client calls as: the option, else LATCH_AGENT, else none. A name
 * that cannot be an agent's is refused here, before any file is read.
 */
function resolveAgent(option: string | undefined, env: NodeJS.ProcessEnv): string | undefined {
  const name = option ?? env['LATCH_AGENT'];
  if (name === undefined || name === '') return undefined;
  if (!validAgentName(name)) throw new AgentNameError(name);
  return name;
}

/** listeningUrl is Variant A's address as the running daemon of home recorded it, or undefined. */
function listeningUrl(home: string): string | undefined {
  const port = readListenFile(home)?.port_a;
  return port === undefined || port === null ? undefined : `http://127.0.0.1:${port}`;
}

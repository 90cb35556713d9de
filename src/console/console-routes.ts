/**
 * The console's own JSON routes, under /console/api (patterns here are without the prefix). Reads
 * and the owner's plain actions go to Variant A's routes as the owner (/console/api/a/…); these
 * are what the console adds: the login, the live event stream, the pictures, and every action
 * that needs fresh presence, proven here by a passkey or passed on as the passphrase.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { fromBase64Url, toBase64Url } from '../crypto/base64url.js';
import { invalidRequest, LatchError } from '../errors/latch-error.js';
import type { Route, RouteResult } from '../http/route.js';
import type { JsonValue } from '../json/parse-json.js';
import { verifyAssertion, verifyRegistration } from '../webauthn/verify.js';
import { CHALLENGE_SECONDS, type ChallengePurpose } from './presence-challenges.js';
import type { ConsoleDeps, PresenceEvidence } from './console-deps.js';
import { expiredSessionCookie, sessionCookie } from './console-headers.js';
import { consoleOrigin, type ConsoleRequestContext } from './console-front-door.js';

/** The routes that need no session: only the login. */
export const PUBLIC_CONSOLE_PATTERNS: ReadonlySet<string> = new Set(['/login']);

/** The WebAuthn relying party: passkeys are scoped to `localhost` (spec owner-console §1). */
export const RP_ID = 'localhost';

type ConsoleHandler = (context: ConsoleRequestContext) => Promise<RouteResult> | RouteResult;
const route = (method: Route['method'], pattern: string, handler: ConsoleHandler): Route => ({
  method,
  pattern,
  access: 'owner',
  handler: handler as Route['handler'],
});

/** consoleRoutes is the console's route table, sorted by pattern then method. */
export function consoleRoutes(deps: ConsoleDeps): Route[] {
  const ok = (body: unknown, status = 200): RouteResult => ({ status, body });
  const expectation = (challenge: Uint8Array) => ({ challenge, origin: consoleOrigin(deps.port()), rpId: RP_ID });

  /** provePresence turns a proof in a body into presence for one purpose, or refuses. */
  async function provePresence(body: JsonValue | undefined, purpose: ChallengePurpose): Promise<PresenceEvidence> {
    if (deps.presence.factors().length === 0) return { factor: 'session' };
    const proof = objectField(body, 'proof') ?? (body as Record<string, JsonValue> | undefined);
    const passkey = objectField(proof, 'passkey');
    if (passkey !== undefined) return provePasskey(passkey, purpose);
    const passphrase = proof === undefined ? undefined : proof['passphrase'];
    if (typeof passphrase === 'string') {
      await deps.presence.checkPassphrase(passphrase);
      return { factor: 'passphrase' };
    }
    throw new LatchError('owner_presence_required');
  }

  function provePasskey(passkey: Record<string, JsonValue>, purpose: ChallengePurpose): PresenceEvidence {
    const id = stringField(passkey, 'id');
    const clientDataJSON = bytesField(passkey, 'client_data_json');
    const authenticatorData = bytesField(passkey, 'authenticator_data');
    const signature = bytesField(passkey, 'signature');
    const stored = deps.passkeys.list().find((key) => key.id === id);
    if (stored === undefined) throw new LatchError('passkey_not_verified', { message: 'That passkey is not registered with this daemon.' });
    const challenge = challengeOf(clientDataJSON);
    const expected = challenge === undefined ? undefined : deps.challenges.consume(challenge, purpose);
    if (expected === undefined) throw new LatchError('passkey_not_verified', { message: 'The passkey answered a challenge that is unknown, used, expired or made for something else.' });
    const verified = verifyAssertion({ clientDataJSON, authenticatorData, signature }, stored, expectation(expected));
    if (!verified.ok) throw new LatchError('passkey_not_verified', { message: `The passkey answer did not verify: ${verified.reason}.` });
    deps.passkeys.recordUse(stored.id, verified.value.signCount);
    return { factor: 'passkey', credentialId: stored.id };
  }

  function challengeOptions(purpose: ChallengePurpose) {
    const passkeys = deps.passkeys.list();
    if (passkeys.length === 0) throw new LatchError('passkey_not_verified', { message: 'No passkey is registered yet; add one on the agents page, or use the passphrase.' });
    return ok({
      challenge: toBase64Url(deps.challenges.issue(purpose)),
      rp_id: RP_ID,
      timeout_ms: CHALLENGE_SECONDS * 1000,
      credential_ids: passkeys.map((key) => key.id),
    });
  }

  async function approvalPurpose(context: ConsoleRequestContext): Promise<ChallengePurpose> {
    const approval = await deps.approvals.get(idParam(context, 'approval_id'));
    return { kind: 'approval', approvalId: approval.id, requestSha256: approval.requestSha256 };
  }

  const callA = (context: ConsoleRequestContext, method: 'POST' | 'DELETE' | 'PUT', path: string, body: JsonValue | undefined, presence: PresenceEvidence, rawBody?: Uint8Array) =>
    deps.callA({ method, path, body, presence, requestId: context.requestId, signal: context.signal, userAgent: context.userAgent, ...(rawBody !== undefined && { rawBody }) });

  return [
    route('GET', '/activity', () => ok({ lines: deps.activity(), verify: deps.verifyAudit(), paused: deps.paused() })),
    route('POST', '/agents', async (context) => {
      const presence = await provePresence(context.body, { kind: 'presence' });
      return callA(context, 'POST', '/agents', { name: stringField(asObject(context.body), 'name') }, presence);
    }),
    route('POST', '/agents/:name/remove', async (context) => {
      const presence = await provePresence(context.body, { kind: 'presence' });
      return callA(context, 'DELETE', `/agents/${encodeURIComponent(idParam(context, 'name'))}`, undefined, presence);
    }),
    route('POST', '/agents/:name/rotate', async (context) => {
      const presence = await provePresence(context.body, { kind: 'presence' });
      return callA(context, 'POST', `/agents/${encodeURIComponent(idParam(context, 'name'))}/rotate`, {}, presence);
    }),
    route('POST', '/approvals/:approval_id/approve', async (context) => {
      // A passkey answers only the challenge made for this approval's exact request.
      const presence = await provePresence(context.body, await approvalPurpose(context));
      return callA(context, 'POST', `/approvals/${idParam(context, 'approval_id')}/approve`, {}, presence);
    }),
    route('POST', '/approvals/:approval_id/passkey-options', async (context) => challengeOptions(await approvalPurpose(context))),
    route('GET', '/events', () => deps.events() as unknown as RouteResult),
    route('POST', '/login', (context) => {
      const code = stringField(asObject(context.body), 'code');
      const login = deps.sessions.login(code);
      if (login === undefined) throw new LatchError('login_code_invalid');
      return { status: 200, body: { csrf: login.csrf }, headers: { 'set-cookie': sessionCookie(login.cookie) } };
    }),
    route('POST', '/logout', (context) => {
      if (context.sessionCookie !== undefined) deps.sessions.logout(context.sessionCookie);
      return { status: 200, body: { logged_out: true }, headers: { 'set-cookie': expiredSessionCookie() } };
    }),
    route('GET', '/passkeys', () => ok({ passkeys: deps.passkeys.list().map((key) => ({ id: key.id, label: key.label, algorithm: key.alg === -7 ? 'ES256' : 'EdDSA', created_at: key.createdAt })) })),
    route('POST', '/passkeys', (context) => {
      const body = asObject(context.body);
      const challenge = challengeOf(bytesField(body, 'client_data_json'));
      const expected = challenge === undefined ? undefined : deps.challenges.consume(challenge, { kind: 'registration' });
      if (expected === undefined) throw new LatchError('passkey_not_verified', { message: 'The registration answered a challenge that is unknown, used or expired.' });
      const verified = verifyRegistration({ clientDataJSON: bytesField(body, 'client_data_json'), attestationObject: bytesField(body, 'attestation_object') }, expectation(expected));
      if (!verified.ok) throw new LatchError('passkey_not_verified', { message: `The new passkey did not verify: ${verified.reason}.` });
      const label = typeof body['label'] === 'string' ? body['label'] : 'passkey';
      return ok(deps.passkeys.add(verified.value, label), 201);
    }),
    route('POST', '/passkeys/:id/remove', async (context) => {
      await provePresence(context.body, { kind: 'presence' });
      deps.passkeys.remove(idParam(context, 'id'));
      return ok({ removed: true });
    }),
    route('POST', '/passkeys/registration-options', async (context) => {
      // The first passkey, while no factor exists, needs only the session: it then is the factor.
      await provePresence(context.body, { kind: 'presence' });
      return ok({
        challenge: toBase64Url(deps.challenges.issue({ kind: 'registration' })),
        rp_id: RP_ID,
        user_id: toBase64Url(sha256(new TextEncoder().encode('latch owner'))),
        timeout_ms: CHALLENGE_SECONDS * 1000,
      });
    }),
    route('POST', '/policy/apply', async (context) => {
      const body = asObject(context.body);
      const text = stringField(body, 'text');
      const presence = await provePresence(body, { kind: 'presence' });
      // PUT /policy stores exactly these bytes, as the owner typed them.
      return callA(context, 'PUT', '/policy', undefined, presence, new TextEncoder().encode(text));
    }),
    route('POST', '/policy/dry-run', (context) => {
      const body = asObject(context.body);
      return ok(deps.policy.dryRun(stringField(body, 'text'), objectField(body, 'request') ?? {}));
    }),
    route('POST', '/policy/validate', (context) => ok(deps.policy.validate(stringField(asObject(context.body), 'text')))),
    route('POST', '/presence-options', () => challengeOptions({ kind: 'presence' })),
    route('POST', '/resume', async (context) => {
      const presence = await provePresence(context.body, { kind: 'presence' });
      return callA(context, 'POST', '/resume', {}, presence);
    }),
    route('GET', '/session', () => ok({ presence_factors: deps.presence.factors() })),
    route('GET', '/spending', () => ok(deps.spending())),
  ];
}

function challengeOf(clientDataJSON: Uint8Array): Uint8Array | undefined {
  try {
    const parsed: unknown = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(clientDataJSON));
    const challenge = typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>)['challenge'] : undefined;
    return typeof challenge === 'string' ? fromBase64Url(challenge) : undefined;
  } catch {
    return undefined;
  }
}

function asObject(body: JsonValue | undefined): Record<string, JsonValue> {
  if (body === undefined || body === null || typeof body !== 'object' || Array.isArray(body)) throw invalidRequest('body', 'The body must be a JSON object.');
  return body as Record<string, JsonValue>;
}

function objectField(body: JsonValue | Record<string, JsonValue> | undefined, name: string): Record<string, JsonValue> | undefined {
  if (body === undefined || body === null || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const value = (body as Record<string, JsonValue>)[name];
  if (value === undefined) return undefined;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw invalidRequest(name, `${name} must be an object.`);
  return value as Record<string, JsonValue>;
}

function stringField(body: Record<string, JsonValue>, name: string): string {
  const value = body[name];
  if (typeof value !== 'string' || value.length === 0 || value.length > 64 * 1024) throw invalidRequest(name, `${name} must be a non-empty string.`);
  return value;
}

function bytesField(body: Record<string, JsonValue>, name: string): Uint8Array {
  const bytes = fromBase64Url(stringField(body, name));
  if (bytes === undefined) throw invalidRequest(name, `${name} must be base64url.`);
  return bytes;
}

function idParam(context: ConsoleRequestContext, name: string): string {
  const value = context.params[name];
  if (value === undefined || !/^[A-Za-z0-9_-]{1,1400}$/.test(value)) throw invalidRequest(name, `${name} is not a valid id.`);
  return value;
}

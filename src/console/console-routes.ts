/**
 * The console's own JSON routes, under /console/api. Reads and the owner's actions are Variant A's
 * routes, mounted under /console/api/a on the console's listener and reached through the same
 * front door (docs/decisions.md §29.2); these are what the console adds: the login, the live
 * event stream, the pictures, the passkeys and the challenges a passkey answers. Presence is never
 * checked here: the front door proves it for every 'owner_present' route.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { toBase64Url } from '../crypto/base64url.js';
import { invalidRequest, LatchError } from '../errors/latch-error.js';
import type { RequestContext, Route, RouteResult } from '../http/route.js';
import type { JsonValue } from '../json/parse-json.js';
import { verifyRegistration } from '../webauthn/verify.js';
import { bool } from '../validate/choice-rules.js';
import { validateQuery } from '../validate/schema.js';
import { CHALLENGE_SECONDS, type ChallengePurpose, type PresenceRequest } from './presence-challenges.js';
import type { ConsoleDeps } from './console-deps.js';
import { CONSOLE_API_PREFIX, consoleOrigin, expiredSessionCookie } from './console-headers.js';
import { signinRoutes } from './console-signin.js';
import { approvalPurpose, bytesField, challengeOf, RP_ID, stringField } from './presence-proof.js';

export { RP_ID } from './presence-proof.js';

const route = (method: Route['method'], pattern: string, access: Route['access'], handler: Route['handler']): Route => ({
  method,
  pattern: `${CONSOLE_API_PREFIX}${pattern}`,
  access,
  handler,
});

/** consoleRoutes is the console's own route table, sorted by pattern then method; the sign-in routes follow (console-signin.ts). */
export function consoleRoutes(deps: ConsoleDeps): Route[] {
  const ok = (body: unknown, status = 200): RouteResult => ({ status, body });

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

  return [
    // Spending and refusals first; signed reads only with ?reads=true (issue 44 item 3).
    route('GET', '/activity', 'owner', (context) => ok({ lines: deps.activity({ reads: validateQuery(context.query, { reads: bool({ default: false }) }).reads }), verify: deps.verifyAudit(), paused: deps.paused() })),
    // A challenge bound to one approval's exact request: only its approve route accepts the answer.
    route('POST', '/approvals/:approval_id/passkey-options', 'owner', async (context) => challengeOptions(await approvalPurpose(deps, idParam(context, 'approval_id')))),
    route('GET', '/events', 'owner', () => deps.events()),
    route('POST', '/logout', 'owner', (context) => {
      context.endOwnerSession?.();
      return { status: 200, body: { logged_out: true }, headers: { 'set-cookie': expiredSessionCookie() } };
    }),
    route('GET', '/passkeys', 'owner', () => ok({ passkeys: deps.passkeys.list().map((key) => ({ id: key.id, label: key.label, algorithm: key.alg === -7 ? 'ES256' : 'EdDSA', created_at: key.createdAt })) })),
    route('POST', '/passkeys', 'owner', (context) => {
      // Only a registration the session asked for with presence (registration-options) can verify.
      const body = asObject(context.body);
      const challenge = challengeOf(bytesField(body, 'client_data_json'));
      const expected = challenge === undefined ? undefined : deps.challenges.consume(challenge, { kind: 'registration' });
      if (expected === undefined) throw new LatchError('passkey_not_verified', { message: 'The registration answered a challenge that is unknown, used or expired.' });
      const verified = verifyRegistration({ clientDataJSON: bytesField(body, 'client_data_json'), attestationObject: bytesField(body, 'attestation_object') }, { challenge: expected, origin: consoleOrigin(deps.port()), rpId: RP_ID });
      if (!verified.ok) throw new LatchError('passkey_not_verified', { message: `The new passkey did not verify: ${verified.reason}.` });
      const label = typeof body['label'] === 'string' ? body['label'] : 'passkey';
      return ok(deps.passkeys.add(verified.value, label), 201);
    }),
    route('POST', '/passkeys/:id/remove', 'owner_present', (context) => {
      deps.passkeys.remove(idParam(context, 'id'));
      return ok({ removed: true });
    }),
    // The first passkey, while no factor exists, needs only the session: it then is the factor.
    route('POST', '/passkeys/registration-options', 'owner_present', () =>
      ok({
        challenge: toBase64Url(deps.challenges.issue({ kind: 'registration' })),
        rp_id: RP_ID,
        user_id: toBase64Url(sha256(new TextEncoder().encode('latch owner'))),
        timeout_ms: CHALLENGE_SECONDS * 1000,
      }),
    ),
    route('POST', '/policy/dry-run', 'owner', (context) => {
      const body = asObject(context.body);
      return ok(deps.policy.dryRun(stringField(body, 'text'), objectField(body, 'request') ?? {}));
    }),
    route('POST', '/policy/validate', 'owner', (context) => ok(deps.policy.validate(stringField(asObject(context.body), 'text')))),
    // A challenge bound to the one request it will confirm (docs/decisions.md §29.7).
    route('POST', '/presence-options', 'owner', (context) => challengeOptions({ kind: 'presence', request: presenceTarget(asObject(context.body)) })),
    route('GET', '/session', 'owner', () => ok({ presence_factors: deps.presence.factors() })),
    route('GET', '/spending', 'owner', () => ok(deps.spending())),
    ...signinRoutes(deps),
  ];
}

/** The methods a presence challenge may be asked for: those of a route that can need presence. */
const PRESENCE_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * presenceTarget reads the request a presence challenge is asked for: `method`, `path` (under
 * /console/api, without a query) and `body_sha256` (lowercase hex SHA-256 of the exact body
 * bytes, of nothing when there is no body).
 */
function presenceTarget(body: Record<string, JsonValue>): PresenceRequest {
  const method = body['method'];
  if (typeof method !== 'string' || !PRESENCE_METHODS.has(method)) throw invalidRequest('method', 'method must be POST, PUT, PATCH or DELETE.');
  const path = body['path'];
  if (typeof path !== 'string' || path.length > 2048 || !/^\/console\/api\/[!-~]*$/.test(path) || path.includes('?')) {
    throw invalidRequest('path', 'path must be the request path under /console/api/, without a query.');
  }
  const bodySha256 = body['body_sha256'];
  if (typeof bodySha256 !== 'string' || !/^[0-9a-f]{64}$/.test(bodySha256)) throw invalidRequest('body_sha256', 'body_sha256 must be the lowercase hex SHA-256 of the request body.');
  return { method, path, bodySha256 };
}

function asObject(body: JsonValue | undefined): Record<string, JsonValue> {
  if (body === undefined || body === null || typeof body !== 'object' || Array.isArray(body)) throw invalidRequest('body', 'The body must be a JSON object.');
  return body as Record<string, JsonValue>;
}

function objectField(body: Record<string, JsonValue>, name: string): Record<string, JsonValue> | undefined {
  const value = body[name];
  if (value === undefined) return undefined;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw invalidRequest(name, `${name} must be an object.`);
  return value as Record<string, JsonValue>;
}

function idParam(context: RequestContext, name: string): string {
  const value = context.params[name];
  if (value === undefined || !/^[A-Za-z0-9_-]{1,1400}$/.test(value)) throw invalidRequest(name, `${name} is not a valid id.`);
  return value;
}

/**
 * Signing in to the console (docs/decisions.md §37). Two ways in, both public routes:
 *
 * - the one-time link `latch console` makes (`POST /console/api/login {code}`). Once the owner
 *   has a passphrase or a passkey, the code alone no longer signs in: the page must also prove
 *   presence (`passkey`, an assertion for a sign-in challenge, or `passphrase`). A process running
 *   as the owner can read the page `latch console` writes, and the code in it, but not the
 *   person's passkey or passphrase. The code is checked first and spent last, so a mistyped
 *   passphrase keeps it;
 * - passkey sign-in (`POST /console/api/signin {passkey}`), for the page an MCP client opens:
 *   a WebAuthn assertion with user verification, for a challenge from
 *   `POST /console/api/signin/passkey-options`, by a passkey registered in the console.
 */
import { toBase64Url } from '../crypto/base64url.js';
import { invalidRequest, LatchError } from '../errors/latch-error.js';
import type { Route, RouteResult } from '../http/route.js';
import { isJsonObject, type JsonValue } from '../json/parse-json.js';
import type { ConsoleDeps } from './console-deps.js';
import { CONSOLE_API_PREFIX, sessionCookie } from './console-headers.js';
import type { ConsoleLogin } from './console-sessions.js';
import { CHALLENGE_SECONDS } from './presence-challenges.js';
import { RP_ID, stringField, verifyPasskeyFor } from './presence-proof.js';

/** The longest passphrase read here, as everywhere: bounded work for the key derivation. */
const PASSPHRASE_CHARS_MAX = 1024;

const route = (method: Route['method'], pattern: string, handler: Route['handler']): Route => ({ method, pattern: `${CONSOLE_API_PREFIX}${pattern}`, access: 'public', handler });

/** signinRoutes are the console's public routes that start a session, sorted by pattern. */
export function signinRoutes(deps: ConsoleDeps): Route[] {
  const signinPasskey = (assertion: JsonValue | undefined): Promise<string> => {
    if (assertion === undefined) throw invalidRequest('passkey', 'passkey (the assertion) is required.');
    return verifyPasskeyFor(deps, assertion, async () => ({ kind: 'signin' }), deps.signinChallenges);
  };

  return [
    route('POST', '/login', async (context) => {
      const body = asObject(context.body);
      const code = stringField(body, 'code');
      if (!deps.sessions.codeLive(code)) throw new LatchError('login_code_invalid');
      if (deps.presence.factors().length > 0) await provePresence(deps, body, signinPasskey);
      const login = deps.sessions.login(code);
      if (login === undefined) throw new LatchError('login_code_invalid');
      return signedIn(login);
    }),
    route('POST', '/signin', async (context) => {
      await signinPasskey(asObject(context.body)['passkey']);
      return signedIn(deps.sessions.open());
    }),
    route('POST', '/signin/passkey-options', () => {
      const passkeys = deps.passkeys.list();
      if (passkeys.length === 0) throw new LatchError('passkey_not_verified', { message: 'No passkey is registered with this daemon: sign in with the link from latch console.' });
      return {
        status: 200,
        body: { challenge: toBase64Url(deps.signinChallenges.issue({ kind: 'signin' })), rp_id: RP_ID, timeout_ms: CHALLENGE_SECONDS * 1000, credential_ids: passkeys.map((key) => key.id) },
      };
    }),
  ];
}

/** provePresence checks the passkey or the passphrase a login carries beside its code. */
async function provePresence(deps: ConsoleDeps, body: Record<string, JsonValue>, signinPasskey: (assertion: JsonValue) => Promise<string>): Promise<void> {
  if (body['passkey'] !== undefined) {
    await signinPasskey(body['passkey']);
    return;
  }
  const passphrase = body['passphrase'];
  if (passphrase === undefined) {
    throw new LatchError('owner_presence_required', { message: 'This daemon has an owner passphrase or passkey: the login link alone does not sign in. Confirm on the page with your passkey or passphrase.' });
  }
  if (typeof passphrase !== 'string' || passphrase.length === 0 || passphrase.length > PASSPHRASE_CHARS_MAX) throw invalidRequest('passphrase', 'passphrase must be a non-empty string.');
  await deps.presence.checkPassphrase(passphrase);
}

function signedIn(login: ConsoleLogin): RouteResult {
  return { status: 200, body: { csrf: login.csrf }, headers: { 'set-cookie': sessionCookie(login.cookie) } };
}

function asObject(body: JsonValue | undefined): Record<string, JsonValue> {
  if (!isJsonObject(body)) throw invalidRequest('body', 'The body must be a JSON object.');
  return body;
}

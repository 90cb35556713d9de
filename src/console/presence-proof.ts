/**
 * The console's passkey proof of presence (spec owner-console §2): an assertion answers a challenge
 * the daemon made for one purpose (an approval's exact request, or presence in general), once,
 * and verifies against a registered passkey. The front door asks it for every owner-present route
 * on the console listener; the passphrase goes through the daemon's one check instead.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { fromBase64Url } from '../crypto/base64url.js';
import { invalidRequest, LatchError } from '../errors/latch-error.js';
import type { Route } from '../http/route.js';
import { isJsonObject, type JsonValue } from '../json/parse-json.js';
import { verifyAssertion } from '../webauthn/verify.js';
import type { ConsoleDeps } from './console-deps.js';
import { CONSOLE_A_PREFIX, consoleOrigin } from './console-headers.js';
import type { ChallengePurpose, PresenceChallenges, PresenceRequest } from './presence-challenges.js';

/** The WebAuthn relying party: passkeys are scoped to `localhost` (spec owner-console §1). */
export const RP_ID = 'localhost';

/** The route whose passkey challenge is bound to one approval's request. */
export const APPROVE_PATTERN = `${CONSOLE_A_PREFIX}/approvals/:approval_id/approve`;

type ProofDeps = Pick<ConsoleDeps, 'passkeys' | 'challenges' | 'approvals' | 'port'>;

/** The request a passkey assertion is offered with, as the front door read it. */
export interface ProvedRequest {
  readonly method: string;
  /** The path exactly as sent, without the query. */
  readonly path: string;
  readonly rawBody: Uint8Array;
}

/**
 * passkeyPurpose names what a passkey assertion for this request must have been made for: the
 * approval's own challenge on its approve route, and everywhere else a challenge for exactly this
 * method, path and body (docs/decisions.md §29.7), so that presence proved for one action can
 * never be spent on another.
 */
export async function passkeyPurpose(deps: Pick<ConsoleDeps, 'approvals'>, route: Route, params: Readonly<Record<string, string>>, request: ProvedRequest): Promise<ChallengePurpose> {
  if (route.pattern === APPROVE_PATTERN) return approvalPurpose(deps, params['approval_id'] ?? '');
  return { kind: 'presence', request: presenceRequest(request) };
}

/** presenceRequest is what a presence challenge binds of a request: method, path and the SHA-256 of its body. */
export function presenceRequest(request: ProvedRequest): PresenceRequest {
  return { method: request.method, path: request.path, bodySha256: bytesToHex(sha256(request.rawBody)) };
}

/** approvalPurpose binds a challenge to one approval's id and the SHA-256 of its exact request. */
export async function approvalPurpose(deps: Pick<ConsoleDeps, 'approvals'>, approvalId: string): Promise<ChallengePurpose> {
  const approval = await deps.approvals.get(approvalId);
  return { kind: 'approval', approvalId: approval.id, requestSha256: approval.requestSha256 };
}

/**
 * provePasskey verifies an assertion `{id, client_data_json, authenticator_data, signature}`
 * (base64url) for this request and resolves the passkey's id; anything else is 401
 * passkey_not_verified (or 400 for a malformed field).
 */
export async function provePasskey(deps: ProofDeps, assertion: JsonValue, route: Route, params: Readonly<Record<string, string>>, request: ProvedRequest): Promise<string> {
  return verifyPasskeyFor(deps, assertion, () => passkeyPurpose(deps, route, params, request), deps.challenges);
}

/**
 * verifyPasskeyFor verifies an assertion made for a challenge of one purpose, taken from one
 * store, against a registered passkey (user verification required), records its sign count and
 * resolves the passkey's id.
 */
export async function verifyPasskeyFor(deps: Pick<ConsoleDeps, 'passkeys' | 'port'>, assertion: JsonValue, purposeOf: () => Promise<ChallengePurpose>, challenges: PresenceChallenges): Promise<string> {
  if (!isJsonObject(assertion)) throw invalidRequest('passkey', 'passkey must be an object.');
  const id = stringField(assertion, 'id');
  const clientDataJSON = bytesField(assertion, 'client_data_json');
  const authenticatorData = bytesField(assertion, 'authenticator_data');
  const signature = bytesField(assertion, 'signature');
  const stored = deps.passkeys.list().find((key) => key.id === id);
  if (stored === undefined) throw new LatchError('passkey_not_verified', { message: 'That passkey is not registered with this daemon.' });
  const purpose = await purposeOf();
  const challenge = challengeOf(clientDataJSON);
  const expected = challenge === undefined ? undefined : challenges.consume(challenge, purpose);
  if (expected === undefined) throw new LatchError('passkey_not_verified', { message: 'The passkey answered a challenge that is unknown, used, expired or made for something else.' });
  const verified = verifyAssertion({ clientDataJSON, authenticatorData, signature }, stored, { challenge: expected, origin: consoleOrigin(deps.port()), rpId: RP_ID });
  if (!verified.ok) throw new LatchError('passkey_not_verified', { message: `The passkey answer did not verify: ${verified.reason}.` });
  deps.passkeys.recordUse(stored.id, verified.value.signCount);
  return stored.id;
}

/** challengeOf reads the challenge a WebAuthn client data JSON answers, or undefined. */
export function challengeOf(clientDataJSON: Uint8Array): Uint8Array | undefined {
  try {
    const parsed: unknown = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(clientDataJSON));
    const challenge = typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>)['challenge'] : undefined;
    return typeof challenge === 'string' ? fromBase64Url(challenge) : undefined;
  } catch {
    return undefined;
  }
}

/** stringField is a non-empty string member of at most 64 KiB. */
export function stringField(body: Record<string, JsonValue>, name: string): string {
  const value = body[name];
  if (typeof value !== 'string' || value.length === 0 || value.length > 64 * 1024) throw invalidRequest(name, `${name} must be a non-empty string.`);
  return value;
}

/** bytesField is a base64url member. */
export function bytesField(body: Record<string, JsonValue>, name: string): Uint8Array {
  const bytes = fromBase64Url(stringField(body, name));
  if (bytes === undefined) throw invalidRequest(name, `${name} must be base64url.`);
  return bytes;
}

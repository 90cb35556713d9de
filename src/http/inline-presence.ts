/**
 * Step 8 of the front door (docs/decisions.md §21, §29.2): the owner's presence sent with a request
 * rather than held as a session: the passphrase in a POST's JSON body or the Latch-Owner-Passphrase
 * header, and on the console the Latch-Owner-Presence header (a passphrase or a passkey assertion).
 */
import { fromBase64Url } from '../crypto/base64url.js';
import { LatchError } from '../errors/latch-error.js';
import { isJsonObject, parseJson, type JsonValue } from '../json/parse-json.js';
import { headerValues } from './door-credential.js';

/** The request header that carries the owner passphrase where the body cannot (PUT /policy, the /v1 proxy). */
export const OWNER_PASSPHRASE_HEADER = 'latch-owner-passphrase';

/**
 * The console's presence header: base64url of the JSON `{"passphrase": "..."}` or
 * `{"passkey": {id, client_data_json, authenticator_data, signature}}`. A header, so that it works
 * for every method and body (PUT /policy's body is the policy), and base64url, so that a
 * passphrase in any script survives a header.
 */
export const OWNER_PRESENCE_HEADER = 'latch-owner-presence';

/**
 * presenceProof reads the console's Latch-Owner-Presence header (exactly one, base64url of a JSON
 * object with `passphrase` or `passkey`), or undefined when none was sent.
 */
export function presenceProof(rawHeaders: readonly string[]): { passphrase?: string; passkey?: JsonValue } | undefined {
  const values = headerValues(rawHeaders, OWNER_PRESENCE_HEADER);
  if (values.length === 0) return undefined;
  const refuse = (): never => {
    throw new LatchError('invalid_request', { param: OWNER_PRESENCE_HEADER, message: 'Latch-Owner-Presence must be sent once: base64url of {"passphrase": "..."} or {"passkey": {...}}.' });
  };
  if (values.length > 1 || (values[0] as string).length > 16 * 1024) refuse();
  const bytes = fromBase64Url(values[0] as string);
  if (bytes === undefined) return refuse();
  let parsed: JsonValue;
  try {
    parsed = parseJson(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    return refuse();
  }
  if (!isJsonObject(parsed)) return refuse();
  const passphrase = parsed['passphrase'];
  if (typeof passphrase === 'string' && passphrase.length > 0 && passphrase.length <= 4096) return { passphrase };
  if (isJsonObject(parsed['passkey'])) return { passkey: parsed['passkey'] };
  return refuse();
}

/**
 * inlinePassphrase finds a passphrase sent with the request: the Latch-Owner-Passphrase header
 * (exactly one), or a string `passphrase` member of a JSON object body.
 */
export function inlinePassphrase(rawHeaders: readonly string[], body: JsonValue | undefined): { passphrase: string | undefined; fromBody: boolean } {
  const headers = headerValues(rawHeaders, OWNER_PASSPHRASE_HEADER);
  if (headers.length > 1) throw new LatchError('invalid_request', { param: OWNER_PASSPHRASE_HEADER, message: 'Send the Latch-Owner-Passphrase header once.' });
  const inBody = isJsonObject(body) && Object.hasOwn(body, 'passphrase');
  if (headers.length === 1) return { passphrase: headers[0], fromBody: inBody };
  if (!inBody) return { passphrase: undefined, fromBody: false };
  const value = (body as Record<string, JsonValue>)['passphrase'];
  if (typeof value !== 'string' || value.length > 4096) throw new LatchError('invalid_request', { param: 'passphrase', message: 'passphrase must be a string of at most 4096 characters.' });
  return { passphrase: value, fromBody: true };
}

/** withoutPassphrase is the body without its `passphrase` member: handlers never see it. */
export function withoutPassphrase(body: JsonValue | undefined): JsonValue | undefined {
  if (!isJsonObject(body)) return body;
  const copy: Record<string, JsonValue> = { ...body };
  delete copy['passphrase'];
  return copy;
}

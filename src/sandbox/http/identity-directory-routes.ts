/**
 * The sandbox cloud's copy of its devices' agent key directories (docs/decisions.md §23.6): a
 * device registers its identity keys with a device-signed PUT, each key with a proof of possession
 * (a directory signature over this cloud's authority), and the sandbox serves them all at
 * /.well-known/http-message-signatures-directory with those signatures. Kept in memory: the
 * sandbox holds no private key to sign with, and a daemon registers again at its next start or
 * key change. A device's new registration replaces its old one, so a removed agent leaves at once.
 */
import { fromBase64, toBase64, utf8 } from '../../crypto/base64url.js';
import { verifyEd25519 } from '../../signer/ed25519-verify.js';
import { keyIdOf } from '../../crypto/jwk.js';
import { publicKeyFromJwk } from '../../verify/public-jwk.js';
import { invalidRequest } from '../../errors/latch-error.js';
import type { Route } from '../../http/route.js';
import { isJsonObject, JsonNumber, type JsonValue } from '../../json/parse-json.js';
import { IDENTITY_DIRECTORY_PATH, proofComponents, proofParams } from '../../identity/directory-proof.js';
import { DIRECTORY_MEDIA_TYPE, WELL_KNOWN_DIRECTORY_PATH, type DirectoryKey } from '../../identity/key-directory.js';
import { serializeSignatureParams, signatureBase } from '../../identity/message-signature.js';
import { deviceRoute } from './guards.js';
import type { SandboxContext } from './sandbox-context.js';

/** At most this many keys per device: the owner's and 64 agents'. */
const KEYS_PER_DEVICE_MAX = 65;
/** A proof is valid for at most a day and a half; the daemon renews it daily. */
const PROOF_SECONDS_MAX = 36 * 3600;

/** One registered key and its proof: a directory signature over `"@authority";req`. */
export interface RegisteredKey {
  jwk: DirectoryKey;
  authority: string;
  created: number;
  expires: number;
  signature: string;
}

/** identityDirectoryRoutes returns the registration route and the public well-known directory. */
export function identityDirectoryRoutes(sandbox: SandboxContext, registered: Map<string, RegisteredKey[]>): Route[] {
  return [
    {
      method: 'GET',
      pattern: WELL_KNOWN_DIRECTORY_PATH,
      access: 'public',
      handler: (context) => {
        const authority = String(context.headers.host ?? '').toLowerCase();
        const now = Math.floor(Date.now() / 1000);
        const entries = [...registered.keys()].sort().flatMap((deviceId) => registered.get(deviceId) ?? []);
        const body = utf8(JSON.stringify({ keys: entries.map((entry) => entry.jwk) }));
        // A proof is served only under the authority it signed and while it holds.
        const proofs = entries.filter((entry) => entry.authority === authority && entry.created <= now && now < entry.expires);
        const members = proofs.map((entry, index) => ({
          input: `binding${index}=${serializeSignatureParams(proofComponents(entry.authority), proofParams(entry.jwk.kid, entry.created, entry.expires))}`,
          signature: `binding${index}=:${entry.signature}:`,
        }));
        const headers: Record<string, string> = { 'content-type': DIRECTORY_MEDIA_TYPE };
        if (members.length > 0) {
          headers['signature-input'] = members.map((m) => m.input).join(', ');
          headers['signature'] = members.map((m) => m.signature).join(', ');
        }
        return { status: 200, rawBody: body, headers };
      },
    },
    {
      method: 'PUT',
      pattern: IDENTITY_DIRECTORY_PATH,
      access: 'public',
      handler: deviceRoute(sandbox, false, (_txn, device, context) => {
        const keys = readRegistration(context.body, (authority) => sandbox.ownAuthorities.has(authority));
        registered.set(device.device_id, keys);
        return { status: 200, body: { keys: keys.length } };
      }),
    },
  ];
}

/** readRegistration checks a registration: valid public keys, kid = thumbprint, and each proof verifying under one of our authorities. */
function readRegistration(body: JsonValue | undefined, isOwnAuthority: (authority: string) => boolean): RegisteredKey[] {
  if (!isJsonObject(body) || !Array.isArray(body['keys']) || Object.keys(body).length !== 1) throw invalidRequest('keys', 'The body must be {"keys": [...]}.');
  const list = body['keys'];
  if (list.length > KEYS_PER_DEVICE_MAX) throw invalidRequest('keys', `At most ${KEYS_PER_DEVICE_MAX} keys.`);
  const now = Math.floor(Date.now() / 1000);
  const seen = new Set<string>();
  return list.map((item, index) => {
    const param = `keys[${index}]`;
    if (!isJsonObject(item)) throw invalidRequest(param, `${param} must be an object.`);
    const { jwk, authority, created, expires, signature } = item as Record<string, JsonValue>;
    const publicKey = publicKeyFromJwk(isJsonObject(jwk) ? { kty: jwk['kty'], crv: jwk['crv'], x: jwk['x'] } : undefined);
    // A private member is refused outright: this document is public.
    if (publicKey === undefined || !isJsonObject(jwk) || 'd' in jwk) throw invalidRequest(`${param}.jwk`, 'An Ed25519 public JWK is expected.');
    const keyId = keyIdOf(publicKey);
    if (jwk['kid'] !== keyId) throw invalidRequest(`${param}.jwk`, 'kid must be the RFC 7638 thumbprint of the key.');
    if (seen.has(keyId)) throw invalidRequest(`${param}.jwk`, 'A key is registered once.');
    seen.add(keyId);
    if (typeof authority !== 'string' || !isOwnAuthority(authority.toLowerCase())) throw invalidRequest(`${param}.authority`, 'The proof must name this cloud\'s authority.');
    const createdAt = created instanceof JsonNumber ? Number(created.text) : Number.NaN;
    const expiresAt = expires instanceof JsonNumber ? Number(expires.text) : Number.NaN;
    if (!Number.isSafeInteger(createdAt) || !Number.isSafeInteger(expiresAt) || expiresAt <= createdAt || expiresAt - createdAt > PROOF_SECONDS_MAX || expiresAt <= now) {
      throw invalidRequest(`${param}.expires`, 'created and expires must be Unix seconds, expires later and within 36 hours of created.');
    }
    const raw = typeof signature === 'string' ? fromBase64(signature) : undefined;
    const base = signatureBase(proofComponents(authority), serializeSignatureParams(proofComponents(authority), proofParams(keyId, createdAt, expiresAt)));
    if (raw === undefined || !verifyEd25519(raw, utf8(base), publicKey)) throw invalidRequest(`${param}.signature`, 'The proof does not verify with the key.');
    return { jwk: { kty: 'OKP', crv: 'Ed25519', kid: keyId, x: String(jwk['x']), use: 'sig' }, authority: authority.toLowerCase(), created: createdAt, expires: expiresAt, signature: toBase64(raw) };
  });
}

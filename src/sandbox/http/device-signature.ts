import { LatchError } from '../../errors/latch-error.js';
import { HTTP_SIGNATURE_TAG } from '../../crypto/signature-purposes.js';
import { contentDigestMatches } from '../../verify/http-signature-verify.js';
import { type SignableRequest } from '../../crypto/http-signature.js';
import { parseSignature, verifyRequestSignature } from '../../verify/http-signature-verify.js';
import type { RequestContext } from '../../http/route.js';
import { SIGNATURE_SKEW_SECONDS } from '../ops/limits.js';

/** The RFC 9421 label the daemon signs under (docs/decisions.md §6). */
export const SIGNATURE_LABEL = 'latch';
/** The only algorithm a device key has; a request naming another is refused, never obeyed. */
const KEY_ALGORITHM = 'ed25519';
const REQUIRED_COMPONENTS = ['@method', '@authority', '@path', '@query'] as const;
const BODY_COMPONENTS = ['content-type', 'content-digest'] as const;
/**
 * Covered whenever the header is sent: the cloud applies a request once per key, so a key a man
 * in the middle could strip or change would let retries of one request take effect again.
 */
const IDEMPOTENCY_COMPONENT = 'idempotency-key';
const NONCE = /^[A-Za-z0-9_+/=-]{8,128}$/;
/**
 * How long a nonce is remembered, from acceptance on the real clock. A signature is only fresh
 * while its `created` is within 5 minutes of now, and it was accepted within 5 minutes of
 * `created`, so after 10 minutes no replay of it could pass the freshness check anyway.
 */
export const NONCE_MEMORY_SECONDS = 2 * SIGNATURE_SKEW_SECONDS;

/** A request signature that verified, and the nonce it used. */
export interface VerifiedSignature {
  keyId: string;
  /** `key_id NUL nonce`: the key of the replay store. */
  nonceKey: string;
  /** Real time after which the nonce may be forgotten. */
  forgetAtReal: number;
}

export interface SignatureChecks {
  /** The public key of a registered key id, or undefined. */
  publicKeyOf(keyId: string): Uint8Array | undefined;
  /** Whether a nonce key was already accepted (or is being accepted right now). */
  nonceSeen(nonceKey: string): boolean;
  /** Real time in Unix seconds; never the sandbox's movable ledger clock. */
  realNow: number;
  /** Whether an @authority (host:port, lower case) names this cloud. */
  isOwnAuthority(authority: string): boolean;
}

/**
 * verifyDeviceSignature checks the RFC 9421 signature of a device request (docs/decisions.md §6), in
 * this order: a `latch` signature is present and well formed (invalid_signature); its keyid is
 * registered (device_key_not_recognized); alg, if named, is the key's own Ed25519; its tag is the
 * upstream request's (crypto/signature-purposes.ts); it covers
 * @method @authority @path @query, content-type and content-digest when there is a body, and
 * idempotency-key when the request carries one;
 * Content-Digest matches the body; the signature verifies over the request as received, with
 * @authority taken from the Host header, which must be this cloud's own address (invalid_signature); `created` is within 5 minutes of the
 * real clock and `expires` has not passed (signature_expired); the nonce is new (replayed_request).
 */
export function verifyDeviceSignature(context: RequestContext, checks: SignatureChecks): VerifiedSignature {
  const headers = context.headers;
  const parsed = parseSignature(single(headers['signature-input']), single(headers['signature']), SIGNATURE_LABEL);
  if (parsed === undefined) throw invalidSignature('The request needs a well-formed RFC 9421 signature labelled "latch".');
  const { keyid, alg, created, expires, nonce, tag } = parsed.params;
  if (typeof keyid !== 'string') throw invalidSignature('The signature has no keyid.');
  const publicKey = checks.publicKeyOf(keyid);
  if (publicKey === undefined) throw new LatchError('device_key_not_recognized');
  if (alg !== undefined && alg !== KEY_ALGORITHM) throw invalidSignature('The signature algorithm is not the key\'s algorithm (ed25519).');
  // Domain separation (docs/decisions.md §34.2): only a signature made as an upstream request is one.
  if (tag !== HTTP_SIGNATURE_TAG.upstreamRequest) throw invalidSignature(`The signature must carry tag="${HTTP_SIGNATURE_TAG.upstreamRequest}".`);
  if (typeof created !== 'number' || typeof expires !== 'number') throw invalidSignature('The signature needs created and expires.');
  if (typeof nonce !== 'string' || !NONCE.test(nonce)) throw invalidSignature('The signature needs a nonce of 8 to 128 characters.');
  const hasBody = context.rawBody.byteLength > 0;
  const required: readonly string[] = hasBody ? [...REQUIRED_COMPONENTS, ...BODY_COMPONENTS] : REQUIRED_COMPONENTS;
  for (const component of required) {
    if (!parsed.components.includes(component)) throw invalidSignature(`The signature must cover ${required.map((c) => `"${c}"`).join(' ')}.`);
  }
  if (headers[IDEMPOTENCY_COMPONENT] !== undefined && !parsed.components.includes(IDEMPOTENCY_COMPONENT)) {
    throw invalidSignature('The signature must cover "idempotency-key" when the request carries an Idempotency-Key.');
  }
  const digest = single(headers['content-digest']);
  if ((hasBody || digest !== undefined) && !contentDigestMatches(digest, context.rawBody)) {
    throw invalidSignature('Content-Digest does not match the body.');
  }
  const request = signable(context);
  // A signature made for another host (another cloud, another service) is not valid here, even
  // if the key is known: the signed @authority must be this cloud's own address.
  if (!checks.isOwnAuthority(request.authority.toLowerCase())) throw invalidSignature('The signed @authority is not this cloud.');
  if (!verifyRequestSignature(request, parsed, publicKey)) throw invalidSignature('The request signature does not verify.');
  if (Math.abs(checks.realNow - created) > SIGNATURE_SKEW_SECONDS || checks.realNow > expires || expires < created) {
    throw new LatchError('signature_expired');
  }
  const nonceKey = `${keyid}\u0000${nonce}`;
  if (checks.nonceSeen(nonceKey)) throw new LatchError('replayed_request');
  return { keyId: keyid, nonceKey, forgetAtReal: checks.realNow + NONCE_MEMORY_SECONDS };
}

/** signable describes the request as received: the raw path and query, and @authority from Host. */
function signable(context: RequestContext): SignableRequest {
  const headers: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(context.headers)) headers[name] = single(value);
  return { method: context.method, authority: single(context.headers['host']) ?? '', path: context.path, query: context.rawQuery, headers };
}

function single(value: string | string[] | undefined): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function invalidSignature(message: string): LatchError {
  return new LatchError('invalid_signature', { message });
}

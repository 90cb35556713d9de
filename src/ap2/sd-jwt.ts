/**
 * Root SD-JWTs exactly as AP2's SDK issues them (`ap2/sdk/sdjwt/sd_jwt.py` `create`, over
 * sd-jwt-python 0.10.4; docs/ap2.md): header {alg ES256, typ example+sd-jwt, kid}, payload
 * {delegate_payload: [{"...": digest}], _sd_alg: "sha-256"}, array-element disclosures
 * `[salt, value]` appended inner first, the compact form ending in `~` with no key-binding JWT.
 * No key here: the caller passes a signer for one purpose (src/signer/ap2-mandate.ts).
 */
import { createHash, randomBytes } from 'node:crypto';
import { fromBase64Url, toBase64Url } from '../crypto/base64url.js';

/** The header `typ` AP2's SDK writes on a root SD-JWT (sd-jwt-python's default SD_JWT_HEADER). */
export const ROOT_SD_JWT_TYP = 'example+sd-jwt';
/** The one digest algorithm AP2 uses and accepts. */
export const SD_ALG = 'sha-256';
/** The key of an array element's digest in place of the element (SD-JWT §4.2.4.2). */
export const ARRAY_DIGEST_KEY = '...';
/** A salt is 16 random bytes, as sd-jwt-python makes them (22 base64url characters). */
const SALT_BYTES = 16;

/** The protected header of a root mandate. */
export interface RootSdJwtHeader {
  alg: 'ES256';
  typ: typeof ROOT_SD_JWT_TYP;
  kid: string;
}

/** What stands in an array for a disclosed element. */
export interface ArrayDigest {
  '...': string;
}

/** disclose turns one array element into a disclosure and returns its digest, to put in its place. */
export type Disclose = (value: unknown) => ArrayDigest;

/** The signature of one signing input under the key `kid` names: raw r||s. */
export interface SdJwtSigner {
  readonly kid: string;
  sign(signingInput: string): Uint8Array;
}

/**
 * issueRootSdJwt makes the compact root SD-JWT of a delegate claims object. `pack` replaces each
 * selectively disclosable array element by `disclose(element)`; the packed object itself is then
 * the one element of `delegate_payload`, disclosed last, as the SDK does. `issuer`, when given, is
 * the issuer JWT's `iss` (AP2 #259; the SDK's verifier passes it to its key lookup and otherwise
 * ignores it). `salt` is for tests.
 */
export function issueRootSdJwt<T>(delegate: T, pack: (delegate: T, disclose: Disclose) => unknown, signer: SdJwtSigner, issuer?: string, salt: () => string = randomSalt): string {
  const disclosures: string[] = [];
  const disclose: Disclose = (value) => {
    const encoded = toBase64Url(Buffer.from(JSON.stringify([salt(), value]), 'utf8'));
    disclosures.push(encoded);
    return { [ARRAY_DIGEST_KEY]: sdDigest(encoded) } as ArrayDigest;
  };
  const top = disclose(pack(delegate, disclose));
  const header: RootSdJwtHeader = { alg: 'ES256', typ: ROOT_SD_JWT_TYP, kid: signer.kid };
  const payload = { ...(issuer !== undefined && { iss: issuer }), delegate_payload: [top], _sd_alg: SD_ALG };
  const signingInput = `${jsonSegment(header)}.${jsonSegment(payload)}`;
  const jwt = `${signingInput}.${toBase64Url(signer.sign(signingInput))}`;
  return `${jwt}~${disclosures.map((d) => `${d}~`).join('')}`;
}

/**
 * sdHash is AP2's hash of a whole SD-JWT (`compute_sd_hash`): base64url(SHA-256) of its ASCII
 * text, the trailing `~` included. The open checkout mandate's is the open payment mandate's
 * `conditional_transaction_id`.
 */
export function sdHash(token: string): string {
  return createHash('sha256').update(token, 'ascii').digest('base64url');
}

/** sdDigest is a disclosure's digest: base64url(SHA-256) of the ASCII of its base64url text. */
export function sdDigest(encodedDisclosure: string): string {
  return createHash('sha256').update(encodedDisclosure, 'ascii').digest('base64url');
}

/** decodeJsonSegment decodes one base64url JSON segment, or returns undefined. */
export function decodeJsonSegment(segment: string): unknown {
  const bytes = fromBase64Url(segment);
  if (bytes === undefined) return undefined;
  try {
    return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    return undefined;
  }
}

function jsonSegment(value: unknown): string {
  return toBase64Url(Buffer.from(JSON.stringify(value), 'utf8'));
}

function randomSalt(): string {
  return toBase64Url(randomBytes(SALT_BYTES));
}

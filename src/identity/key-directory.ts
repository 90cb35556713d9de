/**
 * The HTTP Message Signatures Directory of this device's identity keys (docs/decisions.md §23.5):
 * a JWKS whose every `kid` is the key's RFC 7638 thumbprint, served with the directory media type
 * and signed, one signature per key, over the requested authority and the body's Content-Digest
 * with the tag `http-message-signatures-directory`, as the Web Bot Auth draft's signed directory
 * response shows.
 */
import { HTTP_SIGNATURE_TAG } from '../crypto/signature-purposes.js';
import { contentDigest } from '../crypto/content-digest.js';
import { utf8 } from '../crypto/base64url.js';
import { publicJwk } from '../crypto/jwk.js';
import type { SigningKey } from '../crypto/signing-key.js';
import { component, type CoveredComponent } from './message-signature.js';
import type { Signer } from '../signer/index.js';

/** The directory's media type. */
export const DIRECTORY_MEDIA_TYPE = 'application/http-message-signatures-directory+json';
/** Where a domain publishes its directory. */
export const WELL_KNOWN_DIRECTORY_PATH = '/.well-known/http-message-signatures-directory';
/** The tag of a directory response's signatures. */
export const DIRECTORY_TAG = HTTP_SIGNATURE_TAG.keyDirectory;
/** How long a served directory's signatures stay valid, in seconds. */
export const DIRECTORY_SIGNATURE_SECONDS = 300;

/** One key of the directory, as published: the public JWK, its thumbprint as kid, and its use. */
export interface DirectoryKey {
  kty: 'OKP';
  crv: 'Ed25519';
  kid: string;
  x: string;
  use: 'sig';
}

/** directoryKey is the published form of a key: never its secret part. */
export function directoryKey(key: SigningKey): DirectoryKey {
  const jwk = publicJwk(key.publicKey);
  return { kty: jwk.kty, crv: jwk.crv, kid: key.keyId, x: jwk.x, use: 'sig' };
}

/** directoryBody is the exact bytes of the directory document of keys. */
export function directoryBody(keys: readonly SigningKey[]): Uint8Array {
  return utf8(JSON.stringify({ keys: keys.map(directoryKey) }));
}

/** The response headers of a signed directory. */
export interface DirectoryHeaders {
  'content-type': string;
  'content-digest': string;
  'signature-input': string;
  signature: string;
}

/** directoryComponents is what each directory signature covers: the requested authority and the body's digest. */
export function directoryComponents(authority: string, digest: string): CoveredComponent[] {
  return [{ id: '"@authority";req', value: authority.toLowerCase() }, component('content-digest', digest)];
}

/**
 * signDirectory returns the headers of a directory response for a request to authority: one
 * signature per key, labelled binding0, binding1, … in the order of the keys. No keys, no
 * signature fields.
 */
export function signDirectory(signer: Pick<Signer, 'directoryEntry'>, body: Uint8Array, keys: readonly SigningKey[], authority: string, created: number, expires: number): Partial<DirectoryHeaders> & Pick<DirectoryHeaders, 'content-type' | 'content-digest'> {
  const digest = contentDigest(body);
  const covered = directoryComponents(authority, digest);
  const signed = keys.map((key, index) =>
    signer.directoryEntry(key, `binding${index}`, covered, [['created', created], ['expires', expires], ['keyid', key.keyId], ['tag', DIRECTORY_TAG]]),
  );
  const headers = { 'content-type': DIRECTORY_MEDIA_TYPE, 'content-digest': digest };
  if (signed.length === 0) return headers;
  return { ...headers, 'signature-input': signed.map((s) => s.signatureInput).join(', '), signature: signed.map((s) => s.signature).join(', ') };
}

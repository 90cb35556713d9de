/**
 * WebAuthn registration and assertion checks (WebAuthn Level 3 §7.1 and §7.2), done by the
 * daemon itself with Node built-ins and noble: the client data (type, challenge, origin), the RP
 * ID hash, the user-present and user-verified flags, the signature, and a signature counter that
 * never goes back. Attestation is `none`: the console trusts the key it registers because the
 * owner registered it with presence, not because of who made the authenticator.
 */
import { createPublicKey, verify as verifySignature } from 'node:crypto';
import { sha256 } from '@noble/hashes/sha2.js';
import { fromBase64Url, toBase64Url, utf8 } from '../crypto/base64url.js';
import { verifyEd25519 } from '../signer/ed25519-verify.js';
import { bytesEqual } from './bytes-equal.js';
import { decodeCbor } from './cbor.js';
import { COSE_ALG_EDDSA, coseToPublicKey, type PasskeyAlgorithm, type PasskeyPublicJwk } from './cose-key.js';
import {
  FLAG_ATTESTED_CREDENTIAL,
  FLAG_USER_PRESENT,
  FLAG_USER_VERIFIED,
  parseAuthenticatorData,
  type AuthenticatorData,
} from './authenticator-data.js';

/** What the daemon expects of one ceremony: its own one-time challenge, its origin, its RP ID. */
export interface CeremonyExpectation {
  readonly challenge: Uint8Array;
  readonly origin: string;
  readonly rpId: string;
}

/** A registered passkey as the daemon keeps it. */
export interface PasskeyCredential {
  /** The credential id, base64url. */
  readonly id: string;
  readonly alg: PasskeyAlgorithm;
  readonly jwk: PasskeyPublicJwk;
  readonly signCount: number;
}

export type Verified<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly reason: string };

const fail = (reason: string): { ok: false; reason: string } => ({ ok: false, reason });

/** verifyRegistration checks a `navigator.credentials.create()` answer and returns the new credential. */
export function verifyRegistration(
  response: { readonly clientDataJSON: Uint8Array; readonly attestationObject: Uint8Array },
  expected: CeremonyExpectation,
): Verified<PasskeyCredential> {
  const clientData = checkClientData(response.clientDataJSON, 'webauthn.create', expected);
  if (clientData !== undefined) return fail(clientData);
  let attestation;
  try {
    attestation = decodeCbor(response.attestationObject);
  } catch {
    return fail('the attestation object is not valid CBOR');
  }
  if (!(attestation instanceof Map)) return fail('the attestation object is not a map');
  if (attestation.get('fmt') !== 'none') return fail('only attestation "none" is accepted');
  const authDataBytes = attestation.get('authData');
  if (!(authDataBytes instanceof Uint8Array)) return fail('the attestation object has no authenticator data');
  const authData = parseAuthenticatorData(authDataBytes);
  if (typeof authData === 'string') return fail(authData);
  const flagsProblem = checkAuthenticatorData(authData, expected.rpId);
  if (flagsProblem !== undefined) return fail(flagsProblem);
  if ((authData.flags & FLAG_ATTESTED_CREDENTIAL) === 0 || authData.credential === undefined) {
    return fail('the authenticator data carries no credential');
  }
  const key = coseToPublicKey(authData.credential.publicKey);
  if (typeof key === 'string') return fail(key);
  return {
    ok: true,
    value: { id: toBase64Url(authData.credential.id), alg: key.alg, jwk: key.jwk, signCount: authData.signCount },
  };
}

/** verifyAssertion checks a `navigator.credentials.get()` answer against a stored credential and returns its new counter. */
export function verifyAssertion(
  response: { readonly clientDataJSON: Uint8Array; readonly authenticatorData: Uint8Array; readonly signature: Uint8Array },
  credential: PasskeyCredential,
  expected: CeremonyExpectation,
): Verified<{ signCount: number }> {
  const clientData = checkClientData(response.clientDataJSON, 'webauthn.get', expected);
  if (clientData !== undefined) return fail(clientData);
  const authData = parseAuthenticatorData(response.authenticatorData);
  if (typeof authData === 'string') return fail(authData);
  const flagsProblem = checkAuthenticatorData(authData, expected.rpId);
  if (flagsProblem !== undefined) return fail(flagsProblem);
  const signed = new Uint8Array(response.authenticatorData.length + 32);
  signed.set(response.authenticatorData, 0);
  signed.set(sha256(response.clientDataJSON), response.authenticatorData.length);
  if (!signatureHolds(credential, signed, response.signature)) return fail('the signature does not verify with the registered passkey');
  // §7.2 step 21: a counter that does not move forward means a cloned authenticator, unless
  // both are zero (authenticators that keep no counter, as platform passkeys often do).
  if ((authData.signCount !== 0 || credential.signCount !== 0) && authData.signCount <= credential.signCount) {
    return fail('the signature counter went back: the authenticator may have been cloned');
  }
  return { ok: true, value: { signCount: authData.signCount } };
}

function checkClientData(bytes: Uint8Array, type: string, expected: CeremonyExpectation): string | undefined {
  let clientData: unknown;
  try {
    clientData = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    return 'the client data is not JSON';
  }
  if (typeof clientData !== 'object' || clientData === null) return 'the client data is not an object';
  const fields = clientData as Record<string, unknown>;
  if (fields.type !== type) return `the client data's type is not ${type}`;
  const challenge = typeof fields.challenge === 'string' ? fromBase64Url(fields.challenge) : undefined;
  if (challenge === undefined || !bytesEqual(challenge, expected.challenge)) return 'the challenge is not the one this daemon issued';
  if (fields.origin !== expected.origin) return 'the origin is not the console';
  if (fields.crossOrigin === true) return 'a cross-origin ceremony is not accepted';
  return undefined;
}

function checkAuthenticatorData(authData: AuthenticatorData, rpId: string): string | undefined {
  if (!bytesEqual(authData.rpIdHash, sha256(utf8(rpId)))) return 'the RP ID hash is not this console\'s';
  if ((authData.flags & FLAG_USER_PRESENT) === 0) return 'the user was not present';
  if ((authData.flags & FLAG_USER_VERIFIED) === 0) return 'the user was not verified';
  return undefined;
}

function signatureHolds(credential: PasskeyCredential, message: Uint8Array, signature: Uint8Array): boolean {
  if (credential.alg === COSE_ALG_EDDSA) {
    const x = fromBase64Url(credential.jwk.x);
    return x !== undefined && signature.length === 64 && verifyEd25519(signature, message, x);
  }
  try {
    const key = createPublicKey({ key: { ...credential.jwk }, format: 'jwk' });
    return verifySignature('sha256', message, { key, dsaEncoding: 'der' }, signature);
  } catch {
    return false;
  }
}

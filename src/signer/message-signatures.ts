/**
 * The RFC 9421 signatures of agent identity (docs/decisions.md §23): a Web Bot Auth or Visa TAP
 * request signature, the key directory's per-key signatures, and the registration proof. One
 * function each, so that what may be signed is a list a reviewer reads here.
 */
import { toBase64, utf8 } from '../crypto/base64url.js';
import type { SigningKey } from '../crypto/signing-key.js';
import { serializeSignatureParams, signatureBase, type CoveredComponent, type MessageSignature, type SignatureParameter } from '../identity/message-signature.js';
import { signBytes } from './held-keys.js';

function signMessage(key: SigningKey, label: string, components: readonly CoveredComponent[], params: readonly SignatureParameter[]): MessageSignature {
  const serialized = serializeSignatureParams(components, params);
  const signature = signBytes(key, utf8(signatureBase(components, serialized)));
  return { signatureInput: `${label}=${serialized}`, signature: `${label}=:${toBase64(signature)}:` };
}

/** signWebBotAuth signs an outgoing request of an agent's (or the owner's) identity key. */
export function signWebBotAuth(key: SigningKey, label: string, components: readonly CoveredComponent[], params: readonly SignatureParameter[]): MessageSignature {
  return signMessage(key, label, components, params);
}

/** signDirectoryEntry signs one key's entry of the signed key directory with that key. */
export function signDirectoryEntry(key: SigningKey, label: string, components: readonly CoveredComponent[], params: readonly SignatureParameter[]): MessageSignature {
  return signMessage(key, label, components, params);
}

/** signRegistrationProof signs the proof that registers an identity key with a directory. */
export function signRegistrationProof(key: SigningKey, label: string, components: readonly CoveredComponent[], params: readonly SignatureParameter[]): MessageSignature {
  return signMessage(key, label, components, params);
}

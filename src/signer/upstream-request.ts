/**
 * Signing an upstream request (RFC 9421) to the cloud. The cloud client writes its audit line
 * (`sign_request`, or the window's line with method and path) and waits for it to be on disk
 * before the request leaves (docs/decisions.md §11, §16.3).
 */
import { toBase64, utf8 } from '../crypto/base64url.js';
import { serializeSignatureParams, signatureBase, type SignableRequest, type SignatureParams } from '../crypto/http-signature.js';
import type { SigningKey } from '../crypto/signing-key.js';
import { signBytes } from './held-keys.js';

/** The two header values of a signature. */
export interface SignedHeaders {
  'signature-input': string;
  signature: string;
}

/** signUpstreamRequest signs request under label and returns the Signature-Input and Signature values. */
export function signUpstreamRequest(key: SigningKey, request: SignableRequest, label: string, components: readonly string[], params: SignatureParams): SignedHeaders {
  const serialized = serializeSignatureParams(components, params);
  const base = signatureBase(request, components, serialized);
  if (base === undefined) throw new Error('signUpstreamRequest: a covered component is missing from the request');
  const signature = signBytes(key, utf8(base));
  return { 'signature-input': `${label}=${serialized}`, signature: `${label}=:${toBase64(signature)}:` };
}

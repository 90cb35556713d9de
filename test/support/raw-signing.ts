/**
 * Signing with raw secret bytes, for tests only: stub daemons, a sandbox client, other devices and
 * forged signatures. It uses noble's own `sign`, not the daemon's signer (src/signer/), so a test
 * that compares the two compares independent implementations. Nothing in src/ may do this.
 */
import * as noble from '@noble/ed25519';
import { sha512 } from '@noble/hashes/sha2.js';
import { toBase64, toBase64Url, utf8 } from '../../src/crypto/base64url.js';
import { JWS_TYP } from '../../src/crypto/signature-purposes.js';
import { serializeSignatureParams, signatureBase, type SignableRequest, type SignatureParams } from '../../src/crypto/http-signature.js';
import { serializeSignatureParams as serializeMessageParams, signatureBase as messageBase, type CoveredComponent, type MessageSignature, type SignatureParameter } from '../../src/identity/message-signature.js';

export { generateSecretKey, publicKeyOf } from '../../src/signer/ed25519-sign.js';

// noble-ed25519 v3 needs a synchronous SHA-512 for its synchronous sign (the signer never uses it).
noble.hashes.sha512 = sha512;

/** signEd25519 signs message with a raw 32-byte secret (noble's sign). */
export function signEd25519(message: Uint8Array, secret: Uint8Array): Uint8Array {
  return noble.sign(message, secret);
}

/** signJwsCompact signs payload as a compact EdDSA JWS with a raw secret; typ defaults to the purpose its payload names. */
export function signJwsCompact(payload: object, keyId: string, secret: Uint8Array, typ: string = (payload as { typ?: unknown }).typ === 'revocation' ? JWS_TYP.revocation : JWS_TYP.window): string {
  const header = { alg: 'EdDSA', kid: keyId, typ };
  const signingInput = `${toBase64Url(utf8(JSON.stringify(header)))}.${toBase64Url(utf8(JSON.stringify(payload)))}`;
  return `${signingInput}.${toBase64Url(signEd25519(utf8(signingInput), secret))}`;
}

/** signJwsCompactText signs payload text as it is (an evidence pack's exact bytes) as a compact EdDSA JWS with a raw secret. */
export function signJwsCompactText(payloadText: string, keyId: string, secret: Uint8Array, typ: string): string {
  const signingInput = `${toBase64Url(utf8(JSON.stringify({ alg: 'EdDSA', kid: keyId, typ })))}.${toBase64Url(utf8(payloadText))}`;
  return `${signingInput}.${toBase64Url(signEd25519(utf8(signingInput), secret))}`;
}

/** signRequest signs an RFC 9421 request with a raw secret: Signature-Input and Signature. */
export function signRequest(request: SignableRequest, label: string, components: readonly string[], params: SignatureParams, secret: Uint8Array): { 'signature-input': string; signature: string } {
  const serialized = serializeSignatureParams(components, params);
  const base = signatureBase(request, components, serialized);
  if (base === undefined) throw new Error('signRequest: a covered component is missing from the request');
  return { 'signature-input': `${label}=${serialized}`, signature: `${label}=:${toBase64(signEd25519(utf8(base), secret))}:` };
}

/** secretOf reads the secret the signer holds for a key (a test that forges as the device, or checks a leak). */
export { secretForKeyFile as secretOf, heldKey } from '../../src/signer/held-keys.js';

/** signMessage signs RFC 9421 components the way src/identity/message-signature.ts builds them, with a raw secret. */
export function signMessage(label: string, components: readonly CoveredComponent[], params: readonly SignatureParameter[], secret: Uint8Array): MessageSignature {
  const serialized = serializeMessageParams(components, params);
  return { signatureInput: `${label}=${serialized}`, signature: `${label}=:${toBase64(signEd25519(utf8(messageBase(components, serialized)), secret))}:` };
}

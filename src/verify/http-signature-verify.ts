/**
 * Verifying RFC 9421 HTTP Message Signatures (the subset Latch signs, crypto/http-signature.ts) and
 * RFC 9530 Content-Digest: what the sandbox cloud checks of every request the daemon sends.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { fromBase64, utf8 } from '../crypto/base64url.js';
import { signatureBase, type SignableRequest } from '../crypto/http-signature.js';
import { verifyEd25519 } from '../signer/ed25519-verify.js';

/** A parsed signature: what it covers, its parameters, and the raw serialized parameters. */
export interface ParsedSignature {
  components: string[];
  params: Record<string, string | number>;
  serializedParams: string;
  signature: Uint8Array;
}

const MEMBER_LENGTH_MAX = 2048;

/**
 * parseSignature reads one label's member from Signature-Input and Signature, strictly: an inner
 * list of quoted component names, then parameters with integer or quoted-string values.
 */
export function parseSignature(signatureInput: string | undefined, signatureField: string | undefined, label: string): ParsedSignature | undefined {
  if (signatureInput === undefined || signatureField === undefined) return undefined;
  if (signatureInput.length > MEMBER_LENGTH_MAX || signatureField.length > MEMBER_LENGTH_MAX) return undefined;
  const serializedParams = dictionaryMember(signatureInput, label);
  const signatureText = dictionaryMember(signatureField, label);
  if (serializedParams === undefined || signatureText === undefined) return undefined;
  const bytesMatch = /^:([A-Za-z0-9+/=]+):$/.exec(signatureText);
  const signature = bytesMatch === null ? undefined : fromBase64(bytesMatch[1] as string);
  if (signature === undefined) return undefined;
  const listMatch = /^\(((?:"[a-z0-9@_.-]+"(?: "[a-z0-9@_.-]+")*)?)\)((?:;[a-z][a-z0-9_.*-]*=(?:[0-9]{1,15}|"[\x20-\x21\x23-\x5b\x5d-\x7e]*"))*)$/.exec(serializedParams);
  if (listMatch === null) return undefined;
  const components = (listMatch[1] ?? '') === '' ? [] : (listMatch[1] as string).split(' ').map((c) => c.slice(1, -1));
  if (new Set(components).size !== components.length) return undefined;
  const params: Record<string, string | number> = Object.create(null);
  for (const piece of (listMatch[2] ?? '').split(';').slice(1)) {
    const eq = piece.indexOf('=');
    const key = piece.slice(0, eq);
    const raw = piece.slice(eq + 1);
    if (key in params) return undefined;
    params[key] = raw.startsWith('"') ? raw.slice(1, -1) : Number(raw);
  }
  return { components, params, serializedParams, signature };
}

/** dictionaryMember returns the raw value text of `label=` in a structured-field dictionary. */
function dictionaryMember(field: string, label: string): string | undefined {
  // Members are separated by commas outside quoted strings and inner lists.
  let depth = 0;
  let quoted = false;
  let start = 0;
  const members: string[] = [];
  for (let i = 0; i < field.length; i++) {
    const c = field[i];
    if (quoted) {
      if (c === '\\') i++;
      else if (c === '"') quoted = false;
    } else if (c === '"') quoted = true;
    else if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === ',' && depth === 0) {
      members.push(field.slice(start, i));
      start = i + 1;
    }
  }
  members.push(field.slice(start));
  const found = members.map((m) => m.trim()).filter((m) => m.startsWith(`${label}=`));
  return found.length === 1 ? (found[0] as string).slice(label.length + 1) : undefined;
}

/** verifyRequestSignature reports whether parsed is a valid signature of request under publicKey. */
export function verifyRequestSignature(request: SignableRequest, parsed: ParsedSignature, publicKey: Uint8Array): boolean {
  const base = signatureBase(request, parsed.components, parsed.serializedParams);
  return base !== undefined && verifyEd25519(parsed.signature, utf8(base), publicKey);
}

/**
 * contentDigestMatches reports whether a received Content-Digest field carries a sha-256 member
 * equal to the digest of body. Other algorithms are ignored; a field without sha-256 fails.
 */
export function contentDigestMatches(field: string | undefined, body: Uint8Array): boolean {
  if (field === undefined || field.length > 1024) return false;
  const expected = sha256(body);
  for (const member of field.split(',')) {
    const match = /^\s*sha-256=:([A-Za-z0-9+/=]+):\s*$/.exec(member);
    if (match === null) continue;
    const presented = fromBase64(match[1] as string);
    return presented !== undefined && presented.length === expected.length && presented.every((b, i) => b === expected[i]);
  }
  return false;
}

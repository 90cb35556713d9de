/**
 * RFC 9421 HTTP Message Signatures, the subset Latch uses: derived components @method,
 * @authority, @path, @query and header fields, one signature per label, Ed25519.
 */
import { fromBase64, toBase64, utf8 } from './base64url.js';
import { verifyEd25519 } from './ed25519.js';

/** The parts of a request a signature can cover. Header names are lower-case. */
export interface SignableRequest {
  method: string;
  /** Host and port as sent (`example.com`, `127.0.0.1:7000`). */
  authority: string;
  /** Absolute path, as sent, without the query. */
  path: string;
  /** The query without `?`, as sent; empty when there is none. */
  query: string;
  headers: Readonly<Record<string, string | undefined>>;
}

export interface SignatureParams {
  created: number;
  expires?: number;
  nonce?: string;
  alg?: string;
  keyid: string;
}

/** componentValue returns the canonical value of one covered component, or undefined if absent. */
export function componentValue(request: SignableRequest, component: string): string | undefined {
  switch (component) {
    case '@method':
      return request.method.toUpperCase();
    case '@authority':
      return request.authority.toLowerCase();
    case '@path':
      return request.path === '' ? '/' : request.path;
    case '@query':
      return `?${request.query}`;
    default: {
      if (component.startsWith('@')) return undefined;
      const value = request.headers[component];
      // RFC 9421 §2.1: strip leading and trailing whitespace of the field value.
      return value === undefined ? undefined : value.trim();
    }
  }
}

/** serializeSignatureParams writes the inner list and parameters, as in Signature-Input. */
export function serializeSignatureParams(components: readonly string[], params: SignatureParams): string {
  const list = `(${components.map((c) => `"${c}"`).join(' ')})`;
  let out = `${list};created=${params.created}`;
  if (params.expires !== undefined) out += `;expires=${params.expires}`;
  out += `;keyid="${params.keyid}"`;
  if (params.alg !== undefined) out += `;alg="${params.alg}"`;
  if (params.nonce !== undefined) out += `;nonce="${params.nonce}"`;
  return out;
}

/**
 * signatureBase builds the RFC 9421 §2.5 signature base for covered components and the
 * serialized signature parameters. It returns undefined when a covered component is absent.
 */
export function signatureBase(request: SignableRequest, components: readonly string[], serializedParams: string): string | undefined {
  const lines: string[] = [];
  for (const component of components) {
    const value = componentValue(request, component);
    if (value === undefined || /[\r\n]/.test(value)) return undefined;
    lines.push(`"${component}": ${value}`);
  }
  lines.push(`"@signature-params": ${serializedParams}`);
  return lines.join('\n');
}

export interface SignedHeaders {
  'signature-input': string;
  signature: string;
}

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

/**
 * RFC 9421 HTTP Message Signatures, the subset Latch uses: derived components @method,
 * @authority, @path, @query and header fields, one signature per label, Ed25519.
 */

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
  /** The purpose's RFC 9421 `tag` (crypto/signature-purposes.ts). */
  tag?: string;
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
  if (params.tag !== undefined) out += `;tag="${params.tag}"`;
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

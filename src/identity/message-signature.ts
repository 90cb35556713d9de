/**
 * RFC 9421 signatures as Web Bot Auth writes them (docs/decisions.md §23.2): a covered component
 * is its serialized identifier (`"@authority"`, `"@authority";req`, `"signature-agent"`) with the
 * value it takes in this message, and the signature parameters keep the order they are given in,
 * so that the drafts' test vectors, whose orders differ, are reproduced byte for byte.
 */

/** One covered component: its identifier as serialized in the list, and its canonical value. */
export interface CoveredComponent {
  readonly id: string;
  readonly value: string;
}

/** One signature parameter, in order: integers bare, strings quoted. */
export type SignatureParameter = readonly [name: string, value: number | string];

/** A signature as it is sent: one member of Signature-Input and one of Signature, under one label. */
export interface MessageSignature {
  readonly signatureInput: string;
  readonly signature: string;
}

/** component names a component whose identifier is a plain quoted name. */
export function component(name: string, value: string): CoveredComponent {
  return { id: `"${name}"`, value };
}

/** serializeSignatureParams writes `("a" "b");created=1;keyid="…"` (RFC 9421 §2.3). */
export function serializeSignatureParams(components: readonly CoveredComponent[], params: readonly SignatureParameter[]): string {
  const list = `(${components.map((c) => c.id).join(' ')})`;
  return list + params.map(([name, value]) => (typeof value === 'number' ? `;${name}=${value}` : `;${name}="${value}"`)).join('');
}

/** signatureBase is the RFC 9421 §2.5 signature base of the components under serialized parameters. */
export function signatureBase(components: readonly CoveredComponent[], serializedParams: string): string {
  for (const covered of components) {
    // A value with a line break would forge a line of the base; the callers never make one.
    if (/[\r\n]/.test(covered.value)) throw new Error('signatureBase: a component value holds a line break');
  }
  return [...components.map((c) => `${c.id}: ${c.value}`), `"@signature-params": ${serializedParams}`].join('\n');
}

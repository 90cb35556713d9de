/**
 * An RFC 9421 / RFC 9530 check of a request as an upstream received it, written from the RFCs
 * with node:crypto only (independent of src/crypto), for the label `latch` of decisions §6.
 */
import { createHash, createPublicKey, verify } from 'node:crypto';
import type { PublicJwk } from './independent-jose.js';
import type { RecordedRequest } from './recording-server.js';

export interface CheckedSignature {
  components: string[];
  created: number;
  expires: number;
  keyid: string;
  alg: string;
  nonce: string;
}

/**
 * verifyLatchSignature rebuilds the signature base of a received request from its Signature-Input
 * and verifies Signature with jwk; it also checks Content-Digest against the body. It throws with
 * the reason when anything is off.
 */
export function verifyLatchSignature(request: RecordedRequest, jwk: PublicJwk): CheckedSignature {
  const input = single(request, 'signature-input');
  const signature = single(request, 'signature');
  const inputMatch = /^latch=(\(([^)]*)\)(.*))$/.exec(input);
  const signatureMatch = /^latch=:([A-Za-z0-9+/=]+):$/.exec(signature);
  if (inputMatch === null || signatureMatch === null) throw new Error(`not a single latch signature: ${input} / ${signature}`);
  const serializedParams = inputMatch[1] as string;
  const components = (inputMatch[2] as string).split(' ').filter((c) => c !== '').map((c) => JSON.parse(c) as string);
  const params = new Map<string, string>();
  for (const piece of (inputMatch[3] as string).split(';').slice(1)) {
    const eq = piece.indexOf('=');
    params.set(piece.slice(0, eq), piece.slice(eq + 1).replace(/^"(.*)"$/, '$1'));
  }
  const question = request.target.indexOf('?');
  const path = question === -1 ? request.target : request.target.slice(0, question);
  const query = question === -1 ? '?' : request.target.slice(question);
  const lines = components.map((component) => {
    let value: string;
    if (component === '@method') value = request.method;
    else if (component === '@authority') value = single(request, 'host');
    else if (component === '@path') value = path;
    else if (component === '@query') value = query;
    else value = single(request, component).trim();
    return `"${component}": ${value}`;
  });
  lines.push(`"@signature-params": ${serializedParams}`);
  const key = createPublicKey({ key: { ...jwk }, format: 'jwk' });
  if (!verify(null, Buffer.from(lines.join('\n'), 'utf8'), key, Buffer.from(signatureMatch[1] as string, 'base64'))) {
    throw new Error('the RFC 9421 signature does not verify');
  }
  if (request.body.length > 0) {
    const digest = `sha-256=:${createHash('sha256').update(request.body).digest('base64')}:`;
    if (single(request, 'content-digest') !== digest) throw new Error('Content-Digest does not match the body');
    if (!components.includes('content-digest') || !components.includes('content-type')) throw new Error('the body is not covered');
  }
  return {
    components,
    created: Number(params.get('created')),
    expires: Number(params.get('expires')),
    keyid: params.get('keyid') ?? '',
    alg: params.get('alg') ?? '',
    nonce: params.get('nonce') ?? '',
  };
}

/** single returns a header that must appear exactly once. */
function single(request: RecordedRequest, name: string): string {
  const values: string[] = [];
  for (let i = 0; i + 1 < request.rawHeaders.length; i += 2) {
    if ((request.rawHeaders[i] as string).toLowerCase() === name) values.push(request.rawHeaders[i + 1] as string);
  }
  if (values.length !== 1) throw new Error(`${name} appears ${values.length} times`);
  return values[0] as string;
}

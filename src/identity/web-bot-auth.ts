/**
 * Web Bot Auth request signatures (draft-ietf-webbotauth-httpsig-protocol) and the card networks'
 * agent signatures built on them (Visa TAP's `agent-browser-auth` and `agent-payer-auth`): which
 * components a signature covers, and the three headers an agent adds to its request
 * (docs/decisions.md §23.2). The key, the time and the nonce are given; the daemon's signer signs.
 */
import type { SigningKey } from '../crypto/signing-key.js';
import { WEB_SIGNATURE_TAGS } from '../crypto/signature-purposes.js';
import type { Signer } from '../signer/index.js';
import { component, type CoveredComponent, type SignatureParameter } from './message-signature.js';

export { WEB_SIGNATURE_TAGS };
export type WebSignatureTag = (typeof WEB_SIGNATURE_TAGS)[number];

/** The label of the one signature Latch adds, in Signature-Input, Signature and Signature-Agent. */
export const SIGNATURE_LABEL = 'sig1';
/** The nonce is 64 random bytes, base64: what Cloudflare's web-bot-auth library makes and checks. */
export const NONCE_BYTES = 64;

/** The request as the agent will send it, already checked (see target-url.ts). */
export interface WebRequestTarget {
  /** Host and port as RFC 9421 §2.2.3 normalizes them: lower case, no default port. */
  readonly authority: string;
  /** The absolute path as the URL parser normalized it (what the agent's HTTP client sends). */
  readonly path: string;
  /** `?…` as sent, or empty when the URL has no query. */
  readonly query: string;
  /** The RFC 9530 Content-Digest field value, when the caller gave one. */
  readonly contentDigest?: string;
}

/** What one signature is made of besides the request: key, times, nonce and where the key is published. */
export interface WebSignatureInput {
  readonly target: WebRequestTarget;
  readonly tag: WebSignatureTag;
  readonly key: SigningKey;
  readonly created: number;
  readonly expires: number;
  /** base64 of NONCE_BYTES random bytes. */
  readonly nonce: string;
  /** The `https` URL of the key directory (config.json identity_directory_url), or undefined. */
  readonly directoryUrl?: string;
}

/** The headers the agent adds to its request unchanged, by lower-case name. */
export interface WebSignatureHeaders {
  'signature-input': string;
  signature: string;
  'signature-agent'?: string;
}

/** signatureAgentValue is the Signature-Agent field: a dictionary with one member, keyed by the signature's label. */
export function signatureAgentValue(directoryUrl: string): string {
  return `${SIGNATURE_LABEL}="${directoryUrl}"`;
}

/**
 * coveredComponents lists what a signature covers (docs/decisions.md §23.2): `@authority` always;
 * for the TAP tags also `@path`, and `@query` when there is one, as Visa's Trusted Agent Protocol
 * binds a signature to the page; `signature-agent` whenever that header is sent; and
 * `content-digest` when the caller gave one, which binds the body.
 */
export function coveredComponents(target: WebRequestTarget, tag: WebSignatureTag, signatureAgent: string | undefined): CoveredComponent[] {
  const covered = [component('@authority', target.authority)];
  if (tag !== 'web-bot-auth') {
    covered.push(component('@path', target.path));
    if (target.query !== '') covered.push(component('@query', target.query));
  }
  if (signatureAgent !== undefined) covered.push(component('signature-agent', signatureAgent));
  if (target.contentDigest !== undefined) covered.push(component('content-digest', target.contentDigest));
  return covered;
}

/** signWebRequest makes the Signature-Input, Signature and (with a directory) Signature-Agent headers. */
export function signWebRequest(signer: Pick<Signer, 'webBotAuth'>, input: WebSignatureInput): WebSignatureHeaders {
  const signatureAgent = input.directoryUrl === undefined ? undefined : signatureAgentValue(input.directoryUrl);
  const params: SignatureParameter[] = [
    ['created', input.created],
    ['expires', input.expires],
    ['keyid', input.key.keyId],
    ['nonce', input.nonce],
    ['tag', input.tag],
  ];
  const signed = signer.webBotAuth(input.key, SIGNATURE_LABEL, coveredComponents(input.target, input.tag, signatureAgent), params);
  return {
    'signature-input': signed.signatureInput,
    signature: signed.signature,
    ...(signatureAgent !== undefined && { 'signature-agent': signatureAgent }),
  };
}

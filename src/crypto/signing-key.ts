/**
 * A key the signer holds, as everyone else sees it: its public half and RFC 7638 key id. The
 * secret never appears on it; only src/signer/ can sign with it (docs/decisions.md §28, §34).
 */
export interface SigningKey {
  readonly publicKey: Uint8Array;
  readonly keyId: string;
}

/** One request to the cloud as the signer is asked to sign it (src/signer/upstream-request.ts). */
export interface UpstreamRequestParts {
  method: string;
  url: URL;
  body: Uint8Array | undefined;
  contentType: string | undefined;
  /** The Idempotency-Key sent with the request, if any; the signature covers it. */
  idempotencyKey: string | undefined;
}

/**
 * A device key as the cloud client sees it: its public half, and the one purpose it may ask of
 * the signer, signing a request to the cloud. The signer signs only the enumerated cloud calls
 * (src/signer/cloud-calls.ts), so holding one of these is no way to sign anything else.
 */
export interface UpstreamKey extends SigningKey {
  /** signsCall reports whether signUpstream signs this request; the cloud client asks first and refuses anything else (docs/decisions.md §42). */
  signsCall(request: UpstreamRequestParts): boolean;
  /** signUpstream returns the headers of one signed upstream request (Content-Digest, Signature-Input, Signature, ...). */
  signUpstream(request: UpstreamRequestParts, nowSeconds: number): Record<string, string>;
}

/**
 * Domain separation (docs/decisions.md §34.2): every purpose the device key signs for names
 * itself in what is signed, and every verifier checks that name, so a signature made for one
 * purpose is never accepted as another's — an evidence pack over a window-shaped payload is not a
 * window. A JWS purpose has its own header `typ`; an RFC 9421 purpose its own `tag` parameter;
 * the key proof its own first line. docs/api.md lists them all (a test compares it with this file).
 */

/** The header `typ` of each JWS the device key signs. */
export const JWS_TYP = {
  /** A policy window (card or account), the JWS the cloud registers. */
  window: 'latch-window+jwt',
  /** A revocation of one policy window. */
  revocation: 'latch-revocation+jwt',
  /** An evidence pack, signed whole (shared/spec/evidence.md). */
  evidencePack: 'latch-evidence+jwt',
  /** Reserved for the x402 receipt (shared/spec/x402.md): never accepted where a window is. */
  x402Receipt: 'latch-x402-receipt+jwt',
} as const;

/** The RFC 9421 `tag` of each HTTP message signature purpose. */
export const HTTP_SIGNATURE_TAG = {
  /** The device key's signature of a request to the cloud (label `latch`). */
  upstreamRequest: 'latch-upstream-request',
  /** An identity key's signature of a key directory entry and its registration proof (the directory draft's tag). */
  keyDirectory: 'http-message-signatures-directory',
} as const;

/** The tags an identity key's request signature may carry: Web Bot Auth's (fixed by that draft), then Visa TAP's for browsing and for paying. */
export const WEB_SIGNATURE_TAGS = ['web-bot-auth', 'agent-browser-auth', 'agent-payer-auth'] as const;

/** The first line of the device key's proof of itself on GET /health (crypto/key-proof-message.ts). */
export const KEY_PROOF_LABEL = 'latch-daemon-key-proof-v1';

/**
 * The daemon proof: how a client learns that the program answering on the daemon's address is
 * this daemon before it hands over the daemon token. Another local user can bind the port while
 * the daemon is down (or bind [::1] while it listens on 127.0.0.1), so "something answers" proves
 * nothing. The client sends `Latch-Challenge: <base64url of 32 random bytes>` on GET /health
 * without a token; the daemon answers `Latch-Proof: <base64url HMAC-SHA256>` keyed by a key
 * derived from the daemon token, over the challenge and the exact address:port the client
 * connected to, as the daemon sees its socket. Only a holder of the token can answer, and a
 * squatter relaying to the real daemon at another address gets a proof for the wrong address.
 */
import { hmac } from '@noble/hashes/hmac.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { fromBase64Url, toBase64Url, utf8 } from '../crypto/base64url.js';

/** The request header carrying the client's challenge. */
export const CHALLENGE_HEADER = 'latch-challenge';
/** The response header carrying the daemon's proof. */
export const PROOF_HEADER = 'latch-proof';
/** A challenge is 32 random bytes (43 characters of unpadded base64url). */
export const CHALLENGE_BYTES = 32;

// The label separates this key and message from every other use of the token.
const PROOF_LABEL = 'latch-daemon-proof-v1';

/**
 * proofKey derives the HMAC key from the token, so that the raw token is never used as a key
 * and a proof reveals nothing usable as a bearer credential.
 */
function proofKey(token: string): Uint8Array {
  return sha256(utf8(PROOF_LABEL + token));
}

/**
 * proofAddress formats a literal address and port the way both sides write them into the proof:
 * `127.0.0.1:7723` or `[::1]:7723`. The brackets of an IPv6 literal are optional on input.
 */
export function proofAddress(host: string, port: number): string {
  const bare = host.replace(/^\[(.*)\]$/, '$1');
  return bare.includes(':') ? `[${bare}]:${port}` : `${bare}:${port}`;
}

/** validChallenge reports whether text is a well-formed challenge: canonical base64url of 32 bytes. */
export function validChallenge(text: string): boolean {
  return text.length === 43 && fromBase64Url(text)?.length === CHALLENGE_BYTES;
}

/** daemonProof computes the proof for a challenge received on address (see proofAddress). */
export function daemonProof(token: string, challenge: string, address: string): string {
  const message = utf8(`${PROOF_LABEL}\n${challenge}\n${address}`);
  return toBase64Url(hmac(sha256, proofKey(token), message));
}

/** What proofForRequest reads of a request: its method, target, raw headers and socket. */
export interface ChallengedRequest {
  method?: string | undefined;
  url?: string | undefined;
  rawHeaders: readonly string[];
  socket: { localAddress?: string | undefined; localPort?: number | undefined };
}

/**
 * proofForRequest returns the Latch-Proof value for a GET /health that carries exactly one
 * well-formed challenge, or undefined for any other request. The address is the socket's own
 * local address and port, never the Host header, which the client (or a relay) chooses.
 */
export function proofForRequest(request: ChallengedRequest, token: string): string | undefined {
  if (request.method !== 'GET' || request.url !== '/health') return undefined;
  const challenges: string[] = [];
  for (let i = 0; i + 1 < request.rawHeaders.length; i += 2) {
    if ((request.rawHeaders[i] as string).toLowerCase() === CHALLENGE_HEADER) challenges.push(request.rawHeaders[i + 1] as string);
  }
  const [challenge] = challenges;
  if (challenges.length !== 1 || challenge === undefined || !validChallenge(challenge)) return undefined;
  const { localAddress, localPort } = request.socket;
  if (localAddress === undefined || localPort === undefined) return undefined;
  return daemonProof(token, challenge, proofAddress(localAddress, localPort));
}

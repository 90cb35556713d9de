/**
 * The daemon proof: how a client learns that the program answering on the daemon's address is
 * this daemon before it hands over the daemon token. Another local user can bind the port while
 * the daemon is down (or bind [::1] while it listens on 127.0.0.1), so "something answers" proves
 * nothing. The client sends `Latch-Challenge: <base64url of 32 random bytes>` on GET /health
 * without a token; the daemon answers `Latch-Proof: <base64url HMAC-SHA256>` keyed by a key
 * derived from the daemon token, over the challenge and the exact address:port the client
 * connected to, as the daemon sees its socket. Only a holder of the token can answer, and a
 * squatter relaying to the real daemon at another address gets a proof for the wrong address.
 *
 * An agent's client must verify the daemon too, without reading daemon_token (which it should not
 * be able to read). It sends `Latch-Agent: NAME` beside the challenge: a name is not a secret. The
 * daemon then keys the proof with that agent's own token and binds the name into the message; for
 * an unknown agent it answers a decoy proof, keyed by a secret derived from the daemon token, that
 * no client can check and nobody can tell from a real one, so names cannot be probed
 * (docs/decisions.md §17.9); the client's check fails and it sends nothing. Either way no token
 * travels before the proof is checked.
 */
import { hmac } from '@noble/hashes/hmac.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { fromBase64Url, toBase64Url, utf8 } from '../crypto/base64url.js';
import { isAgentNameShape } from '../ids/agent-name.js';

/** The request header carrying the client's challenge. */
export const CHALLENGE_HEADER = 'latch-challenge';
/** The response header carrying the daemon's proof. */
export const PROOF_HEADER = 'latch-proof';
/** The request header naming the agent whose token keys the proof (absent: the daemon token). */
export const AGENT_HEADER = 'latch-agent';
/** A challenge is 32 random bytes (43 characters of unpadded base64url). */
export const CHALLENGE_BYTES = 32;

// The label separates this key and message from every other use of the token.
const PROOF_LABEL = 'latch-daemon-proof-v1';
// Keys the decoy proof for an unknown agent name: derived from the daemon token, used for nothing else.
const DECOY_LABEL = 'latch-daemon-proof-decoy-v1\u0000';

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

/**
 * daemonProof computes the proof for a challenge received on address (see proofAddress), keyed by
 * token: the daemon token, or the token of the named agent (whose name is then part of the message).
 */
export function daemonProof(token: string, challenge: string, address: string, agent?: string): string {
  const text = agent === undefined ? `${PROOF_LABEL}\n${challenge}\n${address}` : `${PROOF_LABEL}\n${challenge}\n${address}\nagent:${agent}`;
  return toBase64Url(hmac(sha256, proofKey(token), utf8(text)));
}

/** A token source for the proof: the daemon token for no agent, the agent's token, or undefined (no proof). */
export type ProofTokenFor = (agent: string | undefined) => string | undefined;


/** What proofForRequest reads of a request: its method, target, raw headers and socket. */
export interface ChallengedRequest {
  method?: string | undefined;
  url?: string | undefined;
  rawHeaders: readonly string[];
  socket: { localAddress?: string | undefined; localPort?: number | undefined };
}

/**
 * proofForRequest returns the Latch-Proof value for a GET /health that carries exactly one
 * well-formed challenge (and at most one well-formed Latch-Agent), or undefined for any other
 * request. The address is the socket's own local address and port, never the Host header, which
 * the client (or a relay) chooses.
 */
export function proofForRequest(request: ChallengedRequest, tokenFor: ProofTokenFor): string | undefined {
  if (request.method !== 'GET' || request.url !== '/health') return undefined;
  const challenges = headerValues(request.rawHeaders, CHALLENGE_HEADER);
  const agents = headerValues(request.rawHeaders, AGENT_HEADER);
  const [challenge] = challenges;
  if (challenges.length !== 1 || challenge === undefined || !validChallenge(challenge)) return undefined;
  if (agents.length > 1) return undefined;
  const [agent] = agents;
  if (agent !== undefined && !isAgentNameShape(agent)) return undefined;
  const { localAddress, localPort } = request.socket;
  if (localAddress === undefined || localPort === undefined) return undefined;
  const address = proofAddress(localAddress, localPort);
  const token = tokenFor(agent);
  if (token !== undefined) return daemonProof(token, challenge, address, agent);
  if (agent === undefined) return undefined;
  // An unknown agent: the same kind of answer as for a known one, so the name's existence is not told.
  const ownerToken = tokenFor(undefined);
  return ownerToken === undefined ? undefined : daemonProof(`${DECOY_LABEL}${ownerToken}`, challenge, address, agent);
}

function headerValues(rawHeaders: readonly string[], name: string): string[] {
  const values: string[] = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    if ((rawHeaders[i] as string).toLowerCase() === name) values.push(rawHeaders[i + 1] as string);
  }
  return values;
}

/**
 * The key proof (docs/decisions.md §21): the daemon signs the client's challenge with its device
 * key, so that a client holding no secret at all — an owner who cannot read daemon_token in the
 * separate-user setup — can still tell this daemon from a port squatter, against a public key it
 * pinned, before it sends a passphrase. The signed message is `latch-daemon-key-proof-v1`, the
 * challenge and the address, one per line: it can be neither a JWS signing input (which starts
 * with a base64url header) nor an RFC 9421 signature base (which starts with a quoted component),
 * so the device key's other signatures cannot be replayed as proofs, nor a proof as one of them.
 */
export const KEY_PROOF_HEADER = 'latch-key-proof';
export { keyProofMessage } from '../crypto/key-proof-message.js';

/** What the key proof needs of the device key: its public half, its id, and the signer's key proof. */
export interface ProofKey {
  keyId: string;
  publicKey: Uint8Array;
  /** The signature of keyProofMessage(challenge, address), made by the signer (src/signer/key-proof.ts). */
  sign(challenge: string, address: string): Uint8Array;
}

/**
 * keyProofForRequest returns the Latch-Key-Proof value `<key_id>.<public key>.<signature>` (each
 * base64url) for a GET /health with exactly one well-formed challenge, or undefined (no key
 * enrolled, or any other request).
 */
export function keyProofForRequest(request: ChallengedRequest, key: () => ProofKey | undefined): string | undefined {
  if (request.method !== 'GET' || request.url !== '/health') return undefined;
  const challenges = headerValues(request.rawHeaders, CHALLENGE_HEADER);
  const [challenge] = challenges;
  if (challenges.length !== 1 || challenge === undefined || !validChallenge(challenge)) return undefined;
  const { localAddress, localPort } = request.socket;
  if (localAddress === undefined || localPort === undefined) return undefined;
  const found = key();
  if (found === undefined) return undefined;
  const signature = found.sign(challenge, proofAddress(localAddress, localPort));
  return `${found.keyId}.${toBase64Url(found.publicKey)}.${toBase64Url(signature)}`;
}

/**
 * One-time WebAuthn challenges. A challenge for an approval is the SHA-256 of the approval's id,
 * the SHA-256 of its exact request and a fresh nonce, so an assertion made for it proves the owner
 * saw those terms: it cannot approve another approval, nor the same one after its request changed,
 * and it is used once (docs/decisions.md §25).
 */
import { randomBytes } from 'node:crypto';
import { sha256 } from '@noble/hashes/sha2.js';
import { toBase64Url, utf8 } from '../crypto/base64url.js';
import { bytesEqual } from '../webauthn/bytes-equal.js';

/** What a challenge may be used for. */
export type ChallengePurpose =
  | { readonly kind: 'approval'; readonly approvalId: string; readonly requestSha256: string }
  | { readonly kind: 'presence'; readonly request: PresenceRequest }
  | { readonly kind: 'registration' }
  /** Signing in to the console with a passkey (docs/decisions.md §37): a public challenge, in its own store. */
  | { readonly kind: 'signin' };

/**
 * The one request a presence challenge is for (docs/decisions.md §29.7): its method, its exact
 * path (which names its route and the route's parameters) and the SHA-256 (hex) of its exact body
 * bytes, empty for none. An assertion made for it proves presence for that request and no other.
 */
export interface PresenceRequest {
  readonly method: string;
  readonly path: string;
  readonly bodySha256: string;
}

/** A challenge lives this long: long enough for a fingerprint, short enough to be useless later. */
export const CHALLENGE_SECONDS = 120;
const CHALLENGES_MAX = 64;

interface Pending {
  readonly purpose: ChallengePurpose;
  readonly nonce: Uint8Array;
  readonly expiresMs: number;
}

export interface PresenceChallenges {
  /** issue makes a challenge for one purpose and returns its bytes. */
  issue(purpose: ChallengePurpose): Uint8Array;
  /**
   * consume takes back the challenge a browser signed, once, when it was made for exactly this
   * purpose and is still fresh; it returns the challenge bytes for the signature check.
   */
  consume(challenge: Uint8Array, purpose: ChallengePurpose): Uint8Array | undefined;
}

/** challengeFor derives a challenge's bytes from its purpose and nonce. */
export function challengeFor(purpose: ChallengePurpose, nonce: Uint8Array): Uint8Array {
  const binding =
    purpose.kind === 'approval'
      ? `latch approval\n${purpose.approvalId}\n${purpose.requestSha256}\n`
      : purpose.kind === 'presence'
        ? `latch presence\n${purpose.request.method}\n${purpose.request.path}\n${purpose.request.bodySha256}\n`
        : `latch ${purpose.kind}\n`;
  const bindingBytes = utf8(binding);
  const message = new Uint8Array(bindingBytes.length + nonce.length);
  message.set(bindingBytes, 0);
  message.set(nonce, bindingBytes.length);
  return sha256(message);
}

/** createPresenceChallenges makes the in-memory store; `now` is injectable for tests. */
export function createPresenceChallenges(now: () => number = Date.now): PresenceChallenges {
  const pending = new Map<string, Pending>();
  return {
    issue(purpose) {
      while (pending.size >= CHALLENGES_MAX) {
        const oldest = pending.keys().next().value;
        if (oldest === undefined) break;
        pending.delete(oldest);
      }
      const nonce = randomBytes(32);
      const challenge = challengeFor(purpose, nonce);
      pending.set(toBase64Url(challenge), { purpose, nonce, expiresMs: now() + CHALLENGE_SECONDS * 1000 });
      return challenge;
    },
    consume(challenge, purpose) {
      const key = toBase64Url(challenge);
      const entry = pending.get(key);
      if (entry === undefined) return undefined;
      // A challenge offered for the wrong purpose is spent all the same: a second try is an attack.
      pending.delete(key);
      if (now() >= entry.expiresMs) return undefined;
      const expected = challengeFor(purpose, entry.nonce);
      return bytesEqual(expected, challenge) ? expected : undefined;
    },
  };
}

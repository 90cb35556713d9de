/**
 * The daemon key the client has pinned, and the check that the peer holds it (docs/decisions.md
 * §21). Before a passphrase leaves the client, the peer on the daemon's address must sign a fresh
 * challenge with the private half of the pinned key (the key proof of src/http/daemon-proof.ts);
 * a peer that cannot — a port squatter, another user's program — gets `daemon_not_verified` and
 * never sees the passphrase.
 *
 * The pin is the key id (the RFC 7638 thumbprint of the device's public key), from the first of:
 * the system pin root wrote (`/etc/latch/daemon.json`, by `latch service install --system` or
 * `latch daemon|start --user NAME`: src/datadir/system-pin.ts), which nothing running as the owner
 * can rewrite and which therefore wins over everything below for an account it names
 * (src/client/system-daemon.ts); `$LATCH_HOME/daemon_key.pub`
 * (`{"v":1,"key_id":"…","public_key":"…"}`, written by hand or by embedders); the `key_id` that
 * config.json recorded at enrollment (the same-user setup).
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { fromBase64Url, toBase64Url } from '../crypto/base64url.js';
import { verifyEd25519 } from '../signer/ed25519-verify.js';
import { keyIdOf } from '../crypto/jwk.js';
import { writeFileAtomic } from '../datadir/atomic-file.js';
import { loadConfig } from '../datadir/config.js';
import { readPrivateFile } from '../datadir/read-private-file.js';
import { SystemPinError } from '../datadir/system-pin.js';
import { systemPinChoice } from './system-daemon.js';
import { CHALLENGE_BYTES, CHALLENGE_HEADER, KEY_PROOF_HEADER, keyProofMessage } from '../http/daemon-proof.js';
import { LatchClientError } from './client-errors.js';
import { TransportFailure, type HttpTransport, type TransportAnswer } from './http-transport.js';

/** The pin file's name in the client's LATCH_HOME. */
export const PINNED_KEY_FILE = 'daemon_key.pub';

/** A pinned daemon key: where it came from (`system` is root's pin) and its id. */
export interface PinnedKey {
  keyId: string;
  source: 'system' | 'daemon_key.pub' | 'config.json';
  /** The file the pin was read from. */
  file: string;
}

const KEY_ID_SHAPE = /^[A-Za-z0-9_-]{43}$/;

/** pinnedKeyPath is `<home>/daemon_key.pub`. */
export function pinnedKeyPath(home: string): string {
  return path.join(home, PINNED_KEY_FILE);
}

/**
 * readPinnedKey returns the pinned key of a data directory, or undefined when nothing is pinned.
 * A damaged pin file is an error (never "no pin"), so a client fails closed.
 */
export function readPinnedKey(home: string, env: NodeJS.ProcessEnv = process.env): PinnedKey | undefined {
  let system;
  try {
    system = systemPinChoice(home, env);
  } catch (error) {
    if (!(error instanceof SystemPinError)) throw error;
    throw new LatchClientError({ code: 'daemon_not_verified', status: null, message: `The system pin cannot be trusted: ${error.message}.`, remedy: 'Ask root to pin the daemon again: sudo latch service install --system --force (or restart it with sudo latch daemon --user NAME).' });
  }
  // Root's pin wins for an account it names; another account's pin does not apply here (§36).
  if (system?.pin !== undefined) return { keyId: system.pin.key_id, source: 'system', file: system.file };
  const file = pinnedKeyPath(home);
  const text = readPrivateFile(file, 1024);
  if (text !== undefined) {
    const parsed = parsePin(text);
    if (parsed === undefined) throw new LatchClientError({ code: 'daemon_not_verified', status: null, message: `${file} is not a pinned daemon key; remove it, or write the daemon's key id there again.` });
    return { keyId: parsed, source: 'daemon_key.pub', file };
  }
  let keyId: string | undefined;
  try {
    keyId = loadConfig(home).key_id;
  } catch {
    keyId = undefined;
  }
  return keyId === undefined ? undefined : { keyId, source: 'config.json', file: path.join(home, 'config.json') };
}

/** writePinnedKey pins a daemon's public key in home (0600, atomic). */
export function writePinnedKey(home: string, publicKey: Uint8Array): string {
  const keyId = keyIdOf(publicKey);
  writeFileAtomic(pinnedKeyPath(home), `${JSON.stringify({ v: 1, key_id: keyId, public_key: toBase64Url(publicKey) })}\n`);
  return keyId;
}

function parsePin(text: string): string | undefined {
  try {
    const value = JSON.parse(text) as { v?: unknown; key_id?: unknown; public_key?: unknown };
    if (value.v !== 1 || typeof value.key_id !== 'string' || !KEY_ID_SHAPE.test(value.key_id)) return undefined;
    // When the public key is there, it must be the key the id names.
    if (value.public_key !== undefined) {
      const bytes = typeof value.public_key === 'string' ? fromBase64Url(value.public_key) : undefined;
      if (bytes === undefined || bytes.length !== 32 || keyIdOf(bytes) !== value.key_id) return undefined;
    }
    return value.key_id;
  } catch {
    return undefined;
  }
}

/**
 * verifyPinnedDaemon resolves when the peer on the transport's address signs a fresh challenge
 * with the pinned key, bound to the address the client connected to; it throws
 * daemon_not_verified otherwise (daemon_unreachable when nothing listens). It sends no secret.
 */
export async function verifyPinnedDaemon(transport: HttpTransport, baseUrl: string, pinned: PinnedKey | undefined, headers: Record<string, string>, timeoutMs: number): Promise<void> {
  const notVerified = (why: string) =>
    new LatchClientError({
      code: 'daemon_not_verified',
      status: null,
      message: `The program listening on ${baseUrl} did not prove it is the Latch daemon whose key is pinned: ${why}. The passphrase was not sent.`,
    });
  if (pinned === undefined) throw notVerified('no daemon key is pinned (sudo latch service install --system pins the separate-user daemon for every account; the same-user setup pins config.json\'s key at enrollment)');
  const challenge = randomBytes(CHALLENGE_BYTES).toString('base64url');
  let answer: TransportAnswer;
  try {
    answer = await transport.send({ method: 'GET', target: '/health', headers: { ...headers, [CHALLENGE_HEADER]: challenge }, timeoutMs });
  } catch (error) {
    if (error instanceof TransportFailure && error.kind === 'refused') {
      throw new LatchClientError({ code: 'daemon_unreachable', status: null, message: `No Latch daemon answers at ${baseUrl} (${error.reason}).` });
    }
    throw notVerified('it gave no answer to the identity check');
  }
  const proof = answer.headers[KEY_PROOF_HEADER];
  if (answer.status !== 200 || typeof proof !== 'string') throw notVerified('its answer carries no key proof');
  const [keyId, publicText, signatureText, extra] = proof.split('.');
  const publicKey = publicText === undefined ? undefined : fromBase64Url(publicText);
  const signature = signatureText === undefined ? undefined : fromBase64Url(signatureText);
  if (extra !== undefined || publicKey?.length !== 32 || signature?.length !== 64) throw notVerified('its key proof is malformed');
  if (keyId !== pinned.keyId || keyIdOf(publicKey) !== pinned.keyId) throw notVerified(`it holds another key than ${pinned.keyId}, pinned in ${pinned.file}`);
  if (!verifyEd25519(signature, keyProofMessage(challenge, transport.address), publicKey)) throw notVerified('its signature over the challenge is wrong');
}

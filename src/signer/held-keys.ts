/**
 * The secret keys, held where nothing outside the signer folder can reach them: in a WeakMap from
 * the key's public handle to its secret, private to this module. A handle (DeviceKey, an identity
 * key) carries only the public key and key id, so JSON.stringify, util.inspect, object spread and
 * every getter show nothing secret; signing with it is asking this folder for a signature of an
 * enumerated purpose (docs/decisions.md §28).
 */
import { keyIdOf } from '../crypto/jwk.js';
import type { SigningKey } from '../crypto/signing-key.js';
import { expandKey, publicKeyOf, signExpanded, type ExpandedKey } from './ed25519-sign.js';

/** What a held key is for: the device key signs the device's purposes, an identity key an agent's identity. */
export type KeyKind = 'device' | 'identity';

interface Held {
  readonly secret: Uint8Array;
  readonly kind: KeyKind;
  /** Expanded at the first signature, not at load: expanding builds noble's base-point table (§16.4). */
  expanded: ExpandedKey | undefined;
}

const held = new WeakMap<SigningKey, Held>();

/** holdSecret makes handle the public face of secret; the handle must be new to the signer. */
export function holdSecret(handle: SigningKey, secret: Uint8Array, kind: KeyKind): void {
  if (held.has(handle)) throw new Error('holdSecret: this handle already holds a key');
  held.set(handle, { secret: Uint8Array.from(secret), kind, expanded: undefined });
}

/** heldKey makes a frozen handle for secret: its public key and key id. */
export function heldKey(secret: Uint8Array, kind: KeyKind): SigningKey {
  const publicKey = publicKeyOf(secret);
  const handle = Object.freeze({ publicKey, keyId: keyIdOf(publicKey) });
  holdSecret(handle, secret, kind);
  return handle;
}

function heldOf(handle: SigningKey): Held {
  const found = held.get(handle);
  // A handle the signer did not make (a copy, a spread) signs nothing: a programming error.
  if (found === undefined) throw new Error('the signer holds no key for this handle');
  return found;
}

/** kindOf is what the signer holds handle for, or undefined for a handle it did not make (a copy, a spread, a public face). */
export function kindOf(handle: SigningKey): KeyKind | undefined {
  return held.get(handle)?.kind;
}

/** signBytes signs message with the held key; the purpose modules of this folder are its only callers. */
export function signBytes(handle: SigningKey, message: Uint8Array): Uint8Array {
  const key = heldOf(handle);
  key.expanded ??= expandKey(key.secret);
  return signExpanded(message, key.expanded);
}

/** secretForKeyFile returns the secret for writing the key's own file (device-key.ts, identity-key-file.ts). */
export function secretForKeyFile(handle: SigningKey): Uint8Array {
  return heldOf(handle).secret;
}

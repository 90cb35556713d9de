/**
 * The identity key files (docs/decisions.md §23.1): one Ed25519 key per agent, and one for the
 * owner, kept in the agents folder beside the agent tokens as `NAME.identity` (the owner's is
 * `owner.identity`; no agent may be named `owner`). A file holds the 32-byte secret key as
 * unpadded base64url and a newline, 0600, written exclusively or atomically and read with the
 * checks every private file gets (no link, a regular file, this user's, mode 0600). These keys
 * sign only Web Bot Auth requests and their directory; the device key never does.
 */
import { unlinkSync } from 'node:fs';
import path from 'node:path';
import { fromBase64Url, toBase64Url } from '../crypto/base64url.js';
import type { SigningKey } from '../crypto/signing-key.js';
import { createExclusive, fsyncDirectory, writeFileAtomic } from '../datadir/atomic-file.js';
import { DataDirError } from '../datadir/data-dir-error.js';
import { AGENT_FILE_SUFFIXES } from '../datadir/data-files.js';
import { readPrivateFile } from '../datadir/read-private-file.js';
import { generateSecretKey } from './ed25519-sign.js';
import { heldKey } from './held-keys.js';

/** The suffix of an identity key file in the agents folder. */
export const IDENTITY_SUFFIX = AGENT_FILE_SUFFIXES.identity;
/** The owner's key file name stem: `owner` is reserved, so it can never be an agent's. */
export const OWNER_IDENTITY = 'owner';

const KEY_FILE_BYTES_MAX = 64;
const KEY_TEXT = /^([A-Za-z0-9_-]{43})\n?$/;

/** identityKeyFile returns the key file of `holder` (an agent's name or `owner`) in the agents folder. */
export function identityKeyFile(agentsFolder: string, holder: string): string {
  return path.join(agentsFolder, `${holder}${IDENTITY_SUFFIX}`);
}

/** newIdentityKeyText makes a fresh key from the operating system's CSPRNG, as file text. */
function newIdentityKeyText(): string {
  return `${toBase64Url(generateSecretKey())}\n`;
}

/** signingKeyOf makes the signer hold a secret key and returns its handle (public key and RFC 7638 key id). */
export function signingKeyOf(secret: Uint8Array): SigningKey {
  return heldKey(secret, 'identity');
}

/**
 * readIdentityKeyFile returns the key in file, or undefined when there is none. A file that is
 * unsafe or not a key is refused with a DataDirError naming the file and the fix, never its text.
 */
export function readIdentityKeyFile(file: string, fix: string): SigningKey | undefined {
  const text = readPrivateFile(file, KEY_FILE_BYTES_MAX);
  if (text === undefined) return undefined;
  const match = KEY_TEXT.exec(text);
  const secret = match === null ? undefined : fromBase64Url(match[1] as string);
  if (secret === undefined || secret.length !== 32) throw new DataDirError('corrupt', file, 'The identity key file does not hold a key', fix);
  return signingKeyOf(secret);
}

/** createIdentityKeyFile writes a new key with O_EXCL; it returns false when the file exists already. */
export function createIdentityKeyFile(file: string): boolean {
  try {
    createExclusive(file, newIdentityKeyText());
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

/** replaceIdentityKeyFile puts a new key in place atomically: the old one is gone at once. */
export function replaceIdentityKeyFile(file: string): void {
  writeFileAtomic(file, newIdentityKeyText());
}

/** destroyIdentityKeyFile deletes a key file (a missing one is already destroyed) and syncs its folder. */
export function destroyIdentityKeyFile(file: string): void {
  try {
    unlinkSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  fsyncDirectory(path.dirname(file));
}

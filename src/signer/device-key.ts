import { inspect } from 'node:util';
import { keyIdOf, publicJwk, type Ed25519PublicJwk } from '../crypto/jwk.js';
import { createExclusive, writeFileAtomic } from '../datadir/atomic-file.js';
import { DataDirError, shellQuote } from '../datadir/data-dir-error.js';
import { DATA_FILES, dataFilePath } from '../datadir/data-files.js';
import { readPrivateFile } from '../datadir/read-private-file.js';
import { generateSecretKey, publicKeyOf } from './ed25519-sign.js';
import { holdSecret, secretForKeyFile } from './held-keys.js';
import { openKeyFile, parseKeyFile, rawKeyFile, rawSecretKey, sealKeyFile, type KeyFileFormat } from './key-file.js';

/** The environment variable that holds the device key's passphrase. */
export const PASSPHRASE_ENV = 'LATCH_KEY_PASSPHRASE';

// Either format fits in well under a kilobyte.
const KEY_FILE_BYTES_MAX = 4096;

/** The device's Ed25519 key pair with its RFC 7638 key id. */
export interface DeviceKeyPair {
  readonly publicKey: Uint8Array;
  readonly keyId: string;
  readonly publicJwk: Ed25519PublicJwk;
}

/**
 * DeviceKey is the device key as everyone outside the signer sees it: the public half, the key id
 * and how it is stored. The secret is held by the signer (held-keys.ts), never by this object, so
 * no getter, JSON.stringify, util.inspect, spread or Object.keys can reach it; a signature is
 * asked of the signer for a stated purpose (docs/decisions.md §28).
 */
export class DeviceKey implements DeviceKeyPair {
  readonly publicKey: Uint8Array;
  readonly keyId: string;
  readonly publicJwk: Ed25519PublicJwk;
  /** How the key is stored on disk: `raw` (file permissions only) or encrypted under a passphrase. */
  readonly storage: KeyFileFormat;

  constructor(secret: Uint8Array, storage: KeyFileFormat) {
    this.publicKey = publicKeyOf(secret);
    this.keyId = keyIdOf(this.publicKey);
    this.publicJwk = publicJwk(this.publicKey);
    this.storage = storage;
    holdSecret(this, secret, 'device');
  }

  /** toJSON returns public material only. */
  toJSON(): { keyId: string; publicJwk: Ed25519PublicJwk; storage: KeyFileFormat } {
    return { keyId: this.keyId, publicJwk: this.publicJwk, storage: this.storage };
  }

  /** The inspect form names the key id only. */
  [inspect.custom](): string {
    return `DeviceKey { keyId: '${this.keyId}', storage: '${this.storage}' }`;
  }
}

/** deviceKeyPath returns the path of device.key. */
export function deviceKeyPath(home: string): string {
  return dataFilePath(home, DATA_FILES.deviceKey);
}

/**
 * passphraseFromEnv returns LATCH_KEY_PASSPHRASE, treating an empty value as unset, since
 * `export LATCH_KEY_PASSPHRASE=` means "no passphrase" far more often than "the empty passphrase".
 */
export function passphraseFromEnv(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const value = env[PASSPHRASE_ENV];
  return value === undefined || value === '' ? undefined : value;
}

/** generateDeviceKey makes a new key pair in memory from the CSPRNG, without storing it. */
export function generateDeviceKey(passphrase?: string): DeviceKey {
  return new DeviceKey(generateSecretKey(), passphrase === undefined ? 'raw' : 'scrypt-aes-256-gcm');
}

/**
 * storeDeviceKey writes a key made by generateDeviceKey: `create` refuses an existing file,
 * `replace` swaps it atomically. Setup can thereby enroll a new key with the cloud first and
 * store it only once the cloud has accepted it.
 */
export function storeDeviceKey(home: string, key: DeviceKeyPair, passphrase: string | undefined, mode: 'create' | 'replace', file = deviceKeyPath(home)): void {
  checkPassphrase(passphrase);
  const secret = secretForKeyFile(key);
  const contents = passphrase === undefined ? rawKeyFile(secret) : sealKeyFile(secret, passphrase);
  const text = `${JSON.stringify(contents, null, 2)}\n`;
  if (mode === 'replace') {
    writeFileAtomic(file, text);
    return;
  }
  try {
    createExclusive(file, text);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    throw new DataDirError('exists', file, 'A device key already exists', 'keep using it, or replace it with: latch setup --reconnect');
  }
}

/**
 * loadDeviceKey reads device.key, or returns undefined when there is none. An encrypted key needs
 * the passphrase; a wrong one is a `wrong_passphrase` DataDirError. An unencrypted key loads even
 * when a passphrase is given (its `storage` says `raw`, so the caller can warn); the passphrase
 * then protects nothing, and README.md says how to re-encrypt.
 */
export function loadDeviceKey(home: string, passphrase?: string, file = deviceKeyPath(home)): DeviceKey | undefined {
  const text = readPrivateFile(file, KEY_FILE_BYTES_MAX);
  if (text === undefined) return undefined;
  const parsed = parseKeyFile(text, file);
  if (parsed.format === 'raw') return new DeviceKey(rawSecretKey(parsed), 'raw');
  if (passphrase === undefined) {
    throw new DataDirError('passphrase_required', file, `device.key is encrypted and ${PASSPHRASE_ENV} is not set`, `set ${PASSPHRASE_ENV} to the passphrase chosen at setup`);
  }
  checkPassphrase(passphrase);
  const opened = openKeyFile(parsed, passphrase);
  if (opened === undefined) {
    throw new DataDirError(
      'wrong_passphrase',
      file,
      `wrong passphrase for device.key (${PASSPHRASE_ENV})`,
      `set ${PASSPHRASE_ENV} to the passphrase chosen at setup; if it is lost (or the file was altered), make a new key with: latch setup --reconnect (mv ${shellQuote(file)} aside first to keep it)`,
    );
  }
  return new DeviceKey(opened, 'scrypt-aes-256-gcm');
}

function checkPassphrase(passphrase: string | undefined): void {
  if (passphrase === '') {
    throw new DataDirError('invalid_passphrase', PASSPHRASE_ENV, 'The device key passphrase is empty', `set ${PASSPHRASE_ENV} to a non-empty passphrase, or unset it`);
  }
}

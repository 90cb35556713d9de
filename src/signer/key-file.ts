import { createCipheriv, createDecipheriv, randomBytes, scryptSync } from 'node:crypto';
import { fromBase64Url, toBase64Url } from '../crypto/base64url.js';
import { ED25519_SECRET_KEY_BYTES } from './ed25519-sign.js';
import { DataDirError, shellQuote } from '../datadir/data-dir-error.js';

/** The two storage formats of device.key. */
export type KeyFileFormat = 'raw' | 'scrypt-aes-256-gcm';

/** The scrypt parameters stored in an encrypted key file. */
export interface ScryptParams {
  N: number;
  r: number;
  p: number;
  salt: string;
}

/** A device.key file holding the secret key unencrypted (protected by file permissions only). */
export interface RawKeyFile {
  v: 1;
  format: 'raw';
  secret_key: string;
}

/** A device.key file holding the secret key encrypted under a passphrase. */
export interface EncryptedKeyFile {
  v: 1;
  format: 'scrypt-aes-256-gcm';
  kdf: ScryptParams;
  iv: string;
  ciphertext: string;
  tag: string;
}

/** The parsed contents of device.key. */
export type KeyFile = RawKeyFile | EncryptedKeyFile;

/** The scrypt cost used for new files: N=2^15, r=8, p=1 (32 MiB, about 0.1 s). */
export const SCRYPT_DEFAULTS = { N: 2 ** 15, r: 8, p: 1 } as const;

// Bounds on what a file may ask for: low enough to refuse a weakened file, high enough to allow
// a later increase, and capped so that a corrupt file cannot demand gigabytes of memory.
const SCRYPT_N_MIN = 2 ** 15;
const SCRYPT_N_MAX = 2 ** 17;
const SCRYPT_R_MIN = 8;
const SCRYPT_R_MAX = 16;
const SCRYPT_P_MAX = 4;
const SALT_BYTES = 16;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const AES_KEY_BYTES = 32;

/** rawKeyFile returns the unencrypted file contents for a secret key. */
export function rawKeyFile(secretKey: Uint8Array): RawKeyFile {
  return { v: 1, format: 'raw', secret_key: toBase64Url(secretKey) };
}

/**
 * sealKeyFile encrypts a secret key under a passphrase: scrypt derives an AES-256-GCM key from the
 * passphrase and a random salt, and the file's header (version, format, scrypt parameters, iv) is
 * bound in as additional authenticated data, so that no header field can be changed unnoticed.
 */
export function sealKeyFile(secretKey: Uint8Array, passphrase: string): EncryptedKeyFile {
  const kdf: ScryptParams = { ...SCRYPT_DEFAULTS, salt: toBase64Url(randomBytes(SALT_BYTES)) };
  const iv = randomBytes(IV_BYTES);
  const key = deriveKey(passphrase, kdf);
  try {
    const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(headerAad(kdf, toBase64Url(iv)));
    const ciphertext = Buffer.concat([cipher.update(secretKey), cipher.final()]);
    return { v: 1, format: 'scrypt-aes-256-gcm', kdf, iv: toBase64Url(iv), ciphertext: toBase64Url(ciphertext), tag: toBase64Url(cipher.getAuthTag()) };
  } finally {
    key.fill(0);
  }
}

/**
 * openKeyFile decrypts an encrypted key file, or returns undefined when authentication fails:
 * a wrong passphrase and a modified file look the same to AES-GCM.
 */
export function openKeyFile(file: EncryptedKeyFile, passphrase: string): Uint8Array | undefined {
  const key = deriveKey(passphrase, file.kdf);
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, decoded(file.iv), { authTagLength: TAG_BYTES });
    decipher.setAAD(headerAad(file.kdf, file.iv));
    decipher.setAuthTag(decoded(file.tag));
    const plaintext = Buffer.concat([decipher.update(decoded(file.ciphertext)), decipher.final()]);
    const secretKey = new Uint8Array(plaintext);
    plaintext.fill(0);
    return secretKey;
  } catch {
    return undefined;
  } finally {
    key.fill(0);
  }
}

/** How a key file's errors name it and its remedy: device.key's by default, mandate.key's for AP2. */
export interface KeyFileLabel {
  name: string;
  remake: string;
}

const DEVICE_KEY_LABEL: KeyFileLabel = { name: 'device.key', remake: 'latch setup --reconnect' };

/**
 * parseKeyFile validates the text of a key file (device.key, or mandate.key: a P-256 scalar is 32
 * bytes too) and returns its parsed form. Anything other than exactly one of the two formats, with
 * fields of the right lengths, is a `corrupt` DataDirError.
 */
export function parseKeyFile(text: string, file: string, label: KeyFileLabel = DEVICE_KEY_LABEL): KeyFile {
  const corrupt = (what: string): DataDirError =>
    new DataDirError('corrupt', file, `${label.name} is not a valid Latch key file (${what})`, `restore it from a backup, or make a new key with: ${label.remake} (the old file can be moved aside: mv ${shellQuote(file)} ${shellQuote(`${file}.bak`)})`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw corrupt('not JSON');
  }
  if (!isRecord(value) || value['v'] !== 1) throw corrupt('unknown version');
  if (value['format'] === 'raw') {
    if (!hasExactKeys(value, ['v', 'format', 'secret_key'])) throw corrupt('unexpected fields');
    if (!isB64(value['secret_key'], ED25519_SECRET_KEY_BYTES)) throw corrupt('secret_key is not 32 base64url bytes');
    return value as unknown as RawKeyFile;
  }
  if (value['format'] === 'scrypt-aes-256-gcm') {
    if (!hasExactKeys(value, ['v', 'format', 'kdf', 'iv', 'ciphertext', 'tag'])) throw corrupt('unexpected fields');
    const kdf = value['kdf'];
    if (!isRecord(kdf) || !hasExactKeys(kdf, ['N', 'r', 'p', 'salt']) || !validScrypt(kdf)) throw corrupt('scrypt parameters out of range');
    if (!isB64(value['iv'], IV_BYTES)) throw corrupt('iv is not 12 bytes');
    if (!isB64(value['tag'], TAG_BYTES)) throw corrupt('tag is not 16 bytes');
    if (!isB64(value['ciphertext'], ED25519_SECRET_KEY_BYTES)) throw corrupt('ciphertext is not 32 bytes');
    return value as unknown as EncryptedKeyFile;
  }
  throw corrupt('unknown format');
}

/** rawSecretKey decodes the secret key of an unencrypted key file already validated by parseKeyFile. */
export function rawSecretKey(file: RawKeyFile): Uint8Array {
  return new Uint8Array(decoded(file.secret_key));
}

function deriveKey(passphrase: string, kdf: ScryptParams): Buffer {
  // NFC makes the same passphrase typed on different keyboards derive the same key.
  return scryptSync(passphrase.normalize('NFC'), decoded(kdf.salt), AES_KEY_BYTES, {
    N: kdf.N,
    r: kdf.r,
    p: kdf.p,
    // scrypt needs 128·N·r bytes; Node's default ceiling of 32 MiB is exactly too small for N=2^15.
    maxmem: 2 * 128 * kdf.N * kdf.r,
  });
}

function headerAad(kdf: ScryptParams, iv: string): Buffer {
  // Built from the parsed values in a fixed order, so that reformatting the JSON file is harmless.
  const header = { v: 1, format: 'scrypt-aes-256-gcm', kdf: { N: kdf.N, r: kdf.r, p: kdf.p, salt: kdf.salt }, iv };
  return Buffer.from(JSON.stringify(header), 'utf8');
}

function validScrypt(kdf: Record<string, unknown>): boolean {
  const { N, r, p, salt } = kdf;
  if (!Number.isSafeInteger(N) || !Number.isSafeInteger(r) || !Number.isSafeInteger(p)) return false;
  const n = N as number;
  const powerOfTwo = (n & (n - 1)) === 0;
  return powerOfTwo && n >= SCRYPT_N_MIN && n <= SCRYPT_N_MAX
    && (r as number) >= SCRYPT_R_MIN && (r as number) <= SCRYPT_R_MAX
    && (p as number) >= 1 && (p as number) <= SCRYPT_P_MAX
    && isB64(salt, SALT_BYTES);
}

function decoded(text: string): Buffer {
  const bytes = fromBase64Url(text);
  if (bytes === undefined) throw new Error('base64url field was not validated');
  return Buffer.from(bytes);
}

function isB64(value: unknown, bytes: number): boolean {
  return typeof value === 'string' && fromBase64Url(value)?.length === bytes;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function hasExactKeys(value: Record<string, unknown>, keys: readonly string[]): boolean {
  const present = Object.keys(value);
  return present.length === keys.length && keys.every((key) => Object.hasOwn(value, key));
}

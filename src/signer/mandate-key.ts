/**
 * The AP2 mandate key (docs/ap2.md, docs/decisions.md §32): a P-256 key, never the device key, in
 * mandate.key under device.key's file rules (0600, refused when exposed, foreign or a symlink;
 * encrypted at rest under LATCH_KEY_PASSPHRASE when it is set; written atomically). Rotation keeps
 * the retired public keys in mandate.retired.json (datadir/mandate-retired.ts) until every mandate
 * they signed has expired, so GET /ap2/jwks still lists them. This file reads and writes the key
 * (in the signer, like device-key.ts: it holds the private scalar); ap2-mandate.ts signs.
 */
import { createExclusive, writeFileAtomic } from '../datadir/atomic-file.js';
import { DataDirError } from '../datadir/data-dir-error.js';
import { PASSPHRASE_ENV } from './device-key.js';
import { DATA_FILES, dataFilePath } from '../datadir/data-files.js';
import { openKeyFile, parseKeyFile, rawKeyFile, rawSecretKey, sealKeyFile, type KeyFileFormat, type KeyFileLabel } from './key-file.js';
import { readPrivateFile } from '../datadir/read-private-file.js';
import { readRetiredMandateKeys, retiredMandateKeysPath, RETIRED_KEY_LISTED_SECONDS } from '../datadir/mandate-retired.js';
import { MandateKey } from './ap2-mandate.js';
import { generateP256Scalar } from './p256-scalar.js';

const KEY_FILE_BYTES_MAX = 4096;
/** At most this many retired keys are kept; older ones have long expired anyway. */
const RETIRED_KEYS_MAX = 32;

const LABEL: KeyFileLabel = { name: 'mandate.key', remake: 'latch setup --rotate-mandate-key' };

/** The current mandate key (a handle: kid and public JWK) and how it is stored. */
export interface LoadedMandateKey {
  key: MandateKey;
  storage: KeyFileFormat;
}

/** mandateKeyPath returns the path of mandate.key. */
export function mandateKeyPath(home: string): string {
  return dataFilePath(home, DATA_FILES.mandateKey);
}

/** loadMandateKey reads mandate.key, or returns undefined when there is none. */
export function loadMandateKey(home: string, passphrase: string | undefined): LoadedMandateKey | undefined {
  const file = mandateKeyPath(home);
  const text = readPrivateFile(file, KEY_FILE_BYTES_MAX);
  if (text === undefined) return undefined;
  const parsed = parseKeyFile(text, file, LABEL);
  if (parsed.format === 'raw') return loaded(rawSecretKey(parsed), 'raw');
  if (passphrase === undefined) {
    throw new DataDirError('passphrase_required', file, `mandate.key is encrypted and ${PASSPHRASE_ENV} is not set`, `set ${PASSPHRASE_ENV} to the passphrase chosen at setup`);
  }
  const scalar = openKeyFile(parsed, passphrase);
  if (scalar === undefined) {
    throw new DataDirError('wrong_passphrase', file, `wrong passphrase for mandate.key (${PASSPHRASE_ENV})`, `set ${PASSPHRASE_ENV} to the passphrase chosen at setup; if it is lost, make a new key with: latch setup --rotate-mandate-key`);
  }
  return loaded(scalar, 'scrypt-aes-256-gcm');
}

/**
 * ensureMandateKey loads mandate.key, making it first when the data directory has none (at setup,
 * or at the first start of a directory made before AP2 mandates). Two processes racing here both
 * end up with the one key that won the exclusive create.
 */
export function ensureMandateKey(home: string, passphrase: string | undefined): LoadedMandateKey {
  const existing = loadMandateKey(home, passphrase);
  if (existing !== undefined) return existing;
  const scalar = generateP256Scalar();
  try {
    createExclusive(mandateKeyPath(home), keyFileText(scalar, passphrase));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    scalar.fill(0);
  }
  const made = loadMandateKey(home, passphrase);
  if (made === undefined) throw new Error('ensureMandateKey: mandate.key vanished after it was made');
  return made;
}

/**
 * rotateMandateKey replaces mandate.key with a new key. The old public key is written to the
 * retired list first, listed until nowSeconds + RETIRED_KEY_LISTED_SECONDS, so a crash between the
 * two writes leaves the old key both current and listed, never unlisted. Returns the new key's kid.
 */
export function rotateMandateKey(home: string, passphrase: string | undefined, nowSeconds: number): { oldKid: string; newKid: string; oldListedUntil: number } {
  const current = ensureMandateKey(home, passphrase);
  const until = nowSeconds + RETIRED_KEY_LISTED_SECONDS;
  const retired = readRetiredMandateKeys(home).filter((key) => key.until > nowSeconds && key.kid !== current.key.kid);
  retired.push({ jwk: current.key.publicJwk, kid: current.key.kid, until });
  writeFileAtomic(retiredMandateKeysPath(home), `${JSON.stringify({ v: 1, retired: retired.slice(-RETIRED_KEYS_MAX) }, null, 2)}\n`);
  const scalar = generateP256Scalar();
  try {
    writeFileAtomic(mandateKeyPath(home), keyFileText(scalar, passphrase));
  } finally {
    scalar.fill(0);
  }
  const next = loadMandateKey(home, passphrase);
  if (next === undefined) throw new Error('rotateMandateKey: mandate.key vanished after it was written');
  return { oldKid: current.key.kid, newKid: next.key.kid, oldListedUntil: until };
}


function loaded(scalar: Uint8Array, storage: KeyFileFormat): LoadedMandateKey {
  try {
    return { key: MandateKey.fromScalar(scalar), storage };
  } finally {
    scalar.fill(0);
  }
}

function keyFileText(scalar: Uint8Array, passphrase: string | undefined): string {
  if (passphrase === '') throw new DataDirError('invalid_passphrase', PASSPHRASE_ENV, 'The key passphrase is empty', `set ${PASSPHRASE_ENV} to a non-empty passphrase, or unset it`);
  const contents = passphrase === undefined ? rawKeyFile(scalar) : sealKeyFile(scalar, passphrase);
  return `${JSON.stringify(contents, null, 2)}\n`;
}

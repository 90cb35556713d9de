/**
 * The AP2 mandate key (docs/ap2.md, docs/decisions.md §32): a P-256 key, never the device key, in
 * mandate.key under device.key's file rules (0600, refused when exposed, foreign or a symlink;
 * encrypted at rest under LATCH_KEY_PASSPHRASE when it is set; written atomically). Rotation keeps
 * the retired public keys in mandate.retired.json until every mandate they signed has expired, so
 * GET /ap2/jwks still lists them. This file reads and writes it (in the signer, as device-key.ts: it holds the private scalar); ap2-mandate.ts signs.
 */
import { createExclusive, writeFileAtomic } from '../datadir/atomic-file.js';
import { DataDirError } from '../datadir/data-dir-error.js';
import { PASSPHRASE_ENV } from './device-key.js';
import { DATA_FILES, dataFilePath } from '../datadir/home.js';
import { openKeyFile, parseKeyFile, rawKeyFile, rawSecretKey, sealKeyFile, type KeyFileFormat, type KeyFileLabel } from './key-file.js';
import { readPrivateFile } from '../datadir/read-private-file.js';
import { p256PublicJwkFromUntrusted, p256Thumbprint, type P256PublicJwk } from '../crypto/p256.js';
import { Ap2MandateSigner } from './ap2-mandate.js';
import { generateP256Scalar } from './p256-scalar.js';
import { TTL_MINUTES_MAX } from '../validate/ttl.js';

const KEY_FILE_BYTES_MAX = 4096;
const RETIRED_FILE_BYTES_MAX = 64 * 1024;
/** At most this many retired keys are kept; older ones have long expired anyway. */
const RETIRED_KEYS_MAX = 32;
/** AP2's verifiers accept an `exp` up to 300 s in the past (`_check_time_claims`). */
export const AP2_CLOCK_SKEW_SECONDS = 300;
/**
 * A retired key stays listed for the longest lifetime a mandate can have, plus AP2's skew: every
 * mandate it signed has expired by then, whatever the ledger says.
 */
export const RETIRED_KEY_LISTED_SECONDS = TTL_MINUTES_MAX * 60 + AP2_CLOCK_SKEW_SECONDS;

const LABEL: KeyFileLabel = { name: 'mandate.key', remake: 'latch setup --rotate-mandate-key' };

/** A retired mandate key's public half and until when GET /ap2/jwks lists it (Unix seconds). */
export interface RetiredMandateKey {
  jwk: P256PublicJwk;
  kid: string;
  until: number;
}

/** The current mandate key's signer and how it is stored. */
export interface LoadedMandateKey {
  signer: Ap2MandateSigner;
  storage: KeyFileFormat;
}

/** mandateKeyPath returns the path of mandate.key. */
export function mandateKeyPath(home: string): string {
  return dataFilePath(home, DATA_FILES.mandateKey);
}

/** retiredMandateKeysPath returns the path of mandate.retired.json. */
export function retiredMandateKeysPath(home: string): string {
  return dataFilePath(home, DATA_FILES.mandateKeysRetired);
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
  const retired = readRetiredMandateKeys(home).filter((key) => key.until > nowSeconds && key.kid !== current.signer.kid);
  retired.push({ jwk: current.signer.publicJwk, kid: current.signer.kid, until });
  writeFileAtomic(retiredMandateKeysPath(home), `${JSON.stringify({ v: 1, retired: retired.slice(-RETIRED_KEYS_MAX) }, null, 2)}\n`);
  const scalar = generateP256Scalar();
  try {
    writeFileAtomic(mandateKeyPath(home), keyFileText(scalar, passphrase));
  } finally {
    scalar.fill(0);
  }
  const next = loadMandateKey(home, passphrase);
  if (next === undefined) throw new Error('rotateMandateKey: mandate.key vanished after it was written');
  return { oldKid: current.signer.kid, newKid: next.signer.kid, oldListedUntil: until };
}

/** readRetiredMandateKeys reads mandate.retired.json ([] when absent); a malformed file is `corrupt`. */
export function readRetiredMandateKeys(home: string): RetiredMandateKey[] {
  const file = retiredMandateKeysPath(home);
  const text = readPrivateFile(file, RETIRED_FILE_BYTES_MAX);
  if (text === undefined) return [];
  const corrupt = (what: string) => new DataDirError('corrupt', file, `mandate.retired.json is not valid (${what})`, 'restore it from a backup; removing it unlists the retired keys at once');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw corrupt('not JSON');
  }
  const list = (value as { v?: unknown; retired?: unknown } | null)?.retired;
  if ((value as { v?: unknown } | null)?.v !== 1 || !Array.isArray(list)) throw corrupt('unknown version');
  return list.map((entry: unknown) => {
    const record = entry as Record<string, unknown> | null;
    const checked = p256PublicJwkFromUntrusted(record?.['jwk']);
    if (!('jwk' in checked) || !Number.isSafeInteger(record?.['until'])) throw corrupt('an entry is not a P-256 key with until');
    return { jwk: checked.jwk, kid: p256Thumbprint(checked.jwk), until: record?.['until'] as number };
  });
}

function loaded(scalar: Uint8Array, storage: KeyFileFormat): LoadedMandateKey {
  try {
    return { signer: Ap2MandateSigner.fromScalar(scalar), storage };
  } finally {
    scalar.fill(0);
  }
}

function keyFileText(scalar: Uint8Array, passphrase: string | undefined): string {
  if (passphrase === '') throw new DataDirError('invalid_passphrase', PASSPHRASE_ENV, 'The key passphrase is empty', `set ${PASSPHRASE_ENV} to a non-empty passphrase, or unset it`);
  const contents = passphrase === undefined ? rawKeyFile(scalar) : sealKeyFile(scalar, passphrase);
  return `${JSON.stringify(contents, null, 2)}\n`;
}

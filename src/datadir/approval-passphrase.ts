/**
 * The owner's approval passphrase (docs/decisions.md §15.4): when `$LATCH_HOME/approval_passphrase`
 * exists, approving a pending approval needs the passphrase as well as the daemon token. Only an
 * scrypt hash is stored, never the passphrase, so reading the file does not reveal it.
 *
 * The file is JSON: `{"v":1,"alg":"scrypt","n":32768,"r":8,"p":1,"salt":"…","hash":"…"}`, with a
 * random 16-byte salt and a 32-byte hash, both base64url; 0600, written atomically.
 *
 * @example
 *   setApprovalPassphrase(home, 'correct horse battery');
 *   const stored = readApprovalPassphrase(home);
 *   stored !== undefined && (await verifyApprovalPassphraseAsync(stored, presented));
 */
import { randomBytes, scrypt, scryptSync, timingSafeEqual } from 'node:crypto';
import { unlinkSync } from 'node:fs';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { fromBase64Url, toBase64Url } from '../crypto/base64url.js';
import { writeFileAtomic, fsyncDirectory } from './atomic-file.js';
import { DataDirError, shellQuote } from './data-dir-error.js';
import { DATA_FILES, dataFilePath } from './home.js';
import { readPrivateFile } from './read-private-file.js';

/** The parsed, validated contents of approval_passphrase. */
export interface StoredApprovalPassphrase {
  v: 1;
  alg: 'scrypt';
  n: number;
  r: number;
  p: number;
  salt: string;
  hash: string;
}

/** The scrypt cost of new hashes: N=2^15, r=8, p=1 (32 MiB, about 0.1 s), as for device.key. */
export const APPROVAL_SCRYPT = { n: 2 ** 15, r: 8, p: 1 } as const;

/** A passphrase has 8 to 1024 characters (after NFC normalization) and no control characters. */
export const APPROVAL_PASSPHRASE_CHARS_MIN = 8;
export const APPROVAL_PASSPHRASE_CHARS_MAX = 1024;

const SALT_BYTES = 16;
const HASH_BYTES = 32;
const FILE_BYTES_MAX = 1024;
// Bounds a stored file may ask for: never weaker than new files, and capped so that a damaged
// file cannot make every approval demand gigabytes of memory.
const N_MIN = 2 ** 14;
const N_MAX = 2 ** 17;
const R_MAX = 16;
const P_MAX = 4;

/** approvalPassphrasePath returns the passphrase file's path. */
export function approvalPassphrasePath(home: string): string {
  return dataFilePath(home, DATA_FILES.approvalPassphrase);
}

/**
 * approvalPassphraseProblem says why a passphrase cannot be set, or returns undefined when it can.
 * The message never contains the passphrase.
 */
export function approvalPassphraseProblem(passphrase: string): string | undefined {
  const length = [...passphrase.normalize('NFC')].length;
  if (length < APPROVAL_PASSPHRASE_CHARS_MIN) return `The passphrase must have at least ${APPROVAL_PASSPHRASE_CHARS_MIN} characters`;
  if (length > APPROVAL_PASSPHRASE_CHARS_MAX) return `The passphrase must have at most ${APPROVAL_PASSPHRASE_CHARS_MAX} characters`;
  // A stray newline or escape from a pipe would make a passphrase nobody can type again.
  if (/\p{Cc}/u.test(passphrase)) return 'The passphrase must not contain control characters (such as a newline)';
  return undefined;
}

/** setApprovalPassphrase stores a new passphrase's hash (replacing any earlier one) and returns it. */
export function setApprovalPassphrase(home: string, passphrase: string): StoredApprovalPassphrase {
  const file = approvalPassphrasePath(home);
  const problem = approvalPassphraseProblem(passphrase);
  if (problem !== undefined) throw new DataDirError('invalid_value', file, problem, 'choose another passphrase');
  const salt = randomBytes(SALT_BYTES);
  const stored: StoredApprovalPassphrase = {
    v: 1,
    alg: 'scrypt',
    ...APPROVAL_SCRYPT,
    salt: toBase64Url(salt),
    hash: toBase64Url(derive(passphrase, salt, APPROVAL_SCRYPT)),
  };
  writeFileAtomic(file, `${JSON.stringify(stored)}\n`);
  return stored;
}

/** clearApprovalPassphrase removes the passphrase; it reports whether one was set. */
export function clearApprovalPassphrase(home: string): boolean {
  try {
    unlinkSync(approvalPassphrasePath(home));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
  fsyncDirectory(home);
  return true;
}

/**
 * readApprovalPassphrase returns the stored hash, or undefined when no passphrase is set. The
 * checks of every data file apply (owner, 0600, no symbolic link, small); a damaged file is an
 * error, so that approvals fail closed instead of silently needing no passphrase.
 */
export function readApprovalPassphrase(home: string): StoredApprovalPassphrase | undefined {
  const file = approvalPassphrasePath(home);
  const text = readPrivateFile(file, FILE_BYTES_MAX);
  if (text === undefined) return undefined;
  const stored = parseStored(text);
  if (stored === undefined) {
    throw new DataDirError('corrupt', file, 'The approval passphrase file is not one Latch wrote', `set it again with latch approvals passphrase set, or rm ${shellQuote(file)}`);
  }
  return stored;
}

/**
 * approvalPassphraseId names a stored passphrase for its lockout (docs/decisions.md §17.11): a
 * digest of its random salt, so a new passphrase (or none) starts a new count. It reveals nothing
 * of the passphrase or its hash.
 */
export function approvalPassphraseId(stored: StoredApprovalPassphrase): string {
  return bytesToHex(sha256(new TextEncoder().encode(`latch approval passphrase id\u0000${stored.salt}`))).slice(0, 32);
}

/**
 * verifyApprovalPassphraseAsync reports whether candidate is the stored passphrase (constant-time
 * compare), hashing off the event loop: scrypt takes about 0.1 s, which must not stall every other
 * request of the daemon.
 */
export async function verifyApprovalPassphraseAsync(stored: StoredApprovalPassphrase, candidate: string): Promise<boolean> {
  if (!plausibleCandidate(candidate)) return false;
  const derived = await new Promise<Buffer>((resolve, reject) => {
    scrypt(candidate.normalize('NFC'), decoded(stored.salt), HASH_BYTES, scryptOptions(stored), (error, key) => (error === null ? resolve(key) : reject(error)));
  });
  return hashesEqual(stored, derived);
}

function plausibleCandidate(candidate: string): boolean {
  // Bounded before hashing, so a huge body cannot buy expensive work; the bound leaks nothing.
  return typeof candidate === 'string' && candidate.length > 0 && candidate.length <= APPROVAL_PASSPHRASE_CHARS_MAX * 4;
}

function hashesEqual(stored: StoredApprovalPassphrase, derived: Buffer): boolean {
  const expected = decoded(stored.hash);
  return expected.length === derived.length && timingSafeEqual(expected, derived);
}

function derive(passphrase: string, salt: Uint8Array, cost: { n: number; r: number; p: number }): Buffer {
  // NFC makes the same passphrase typed on different keyboards derive the same hash.
  return scryptSync(passphrase.normalize('NFC'), salt, HASH_BYTES, scryptOptions(cost));
}

function scryptOptions(cost: { n: number; r: number; p: number }): { N: number; r: number; p: number; maxmem: number } {
  // scrypt needs 128·N·r bytes; Node's default ceiling of 32 MiB is exactly too small for N=2^15.
  return { N: cost.n, r: cost.r, p: cost.p, maxmem: 2 * 128 * cost.n * cost.r };
}

function decoded(text: string): Buffer {
  const bytes = fromBase64Url(text);
  if (bytes === undefined) throw new Error('approval passphrase field was validated as base64url');
  return Buffer.from(bytes);
}

function parseStored(text: string): StoredApprovalPassphrase | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record).sort().join(',');
  if (keys !== 'alg,hash,n,p,r,salt,v') return undefined;
  const { v, alg, n, r, p, salt, hash } = record;
  if (v !== 1 || alg !== 'scrypt') return undefined;
  if (!Number.isSafeInteger(n) || (n as number) < N_MIN || (n as number) > N_MAX || ((n as number) & ((n as number) - 1)) !== 0) return undefined;
  if (!Number.isSafeInteger(r) || (r as number) < 1 || (r as number) > R_MAX) return undefined;
  if (!Number.isSafeInteger(p) || (p as number) < 1 || (p as number) > P_MAX) return undefined;
  if (typeof salt !== 'string' || fromBase64Url(salt)?.length !== SALT_BYTES) return undefined;
  if (typeof hash !== 'string' || fromBase64Url(hash)?.length !== HASH_BYTES) return undefined;
  return { v: 1, alg: 'scrypt', n: n as number, r: r as number, p: p as number, salt, hash };
}

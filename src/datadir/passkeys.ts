/**
 * The owner's passkeys (spec owner-console §2): `$LATCH_HOME/passkeys.json`, 0600, written
 * atomically. It holds public keys only, but whoever can add one can prove presence, so it gets
 * every check a secret file gets and a damaged file fails closed (docs/decisions.md §25).
 *
 * The file is JSON: `{"v":1,"passkeys":[{"id","label","alg","jwk","sign_count","created_at"}]}`.
 */
import { fsyncDirectory, writeFileAtomic } from './atomic-file.js';
import { DataDirError, shellQuote } from './data-dir-error.js';
import { DATA_FILES, dataFilePath } from './home.js';
import { readPrivateFile } from './read-private-file.js';
import type { PasskeyCredential } from '../webauthn/verify.js';

/** At most this many passkeys: a few devices and a spare key, with room to spare. */
export const PASSKEYS_MAX = 16;
const FILE_BYTES_MAX = 64 * 1024;
const LABEL_CHARS_MAX = 64;

export interface StoredPasskey extends PasskeyCredential {
  readonly label: string;
  readonly createdAt: string;
}

/** passkeysPath is where the passkeys live. */
export function passkeysPath(home: string): string {
  return dataFilePath(home, DATA_FILES.passkeys);
}

/** readPasskeys returns the registered passkeys (none when the file is absent). */
export function readPasskeys(home: string): StoredPasskey[] {
  const file = passkeysPath(home);
  const text = readPrivateFile(file, FILE_BYTES_MAX);
  if (text === undefined) return [];
  const passkeys = parsePasskeys(text);
  if (passkeys === undefined) {
    throw new DataDirError('corrupt', file, 'The passkeys file is not one Latch wrote', `remove it (rm ${shellQuote(file)}) and register the passkeys again`);
  }
  return passkeys;
}

/** writePasskeys replaces the file with this list (removing it when the list is empty). */
export function writePasskeys(home: string, passkeys: readonly StoredPasskey[]): void {
  const wire = passkeys.map((key) => ({ id: key.id, label: key.label, alg: key.alg, jwk: key.jwk, sign_count: key.signCount, created_at: key.createdAt }));
  writeFileAtomic(passkeysPath(home), `${JSON.stringify({ v: 1, passkeys: wire })}\n`);
  fsyncDirectory(home);
}

/** cleanLabel trims a passkey's label and keeps it short and printable. */
export function cleanLabel(label: string): string {
  // Control characters would let a label rewrite a terminal or a log line.
  const printable = [...label.normalize('NFC')].filter((char) => !/\p{Cc}/u.test(char)).join('');
  return printable.trim().slice(0, LABEL_CHARS_MAX) || 'passkey';
}

function parsePasskeys(text: string): StoredPasskey[] | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const { v, passkeys } = parsed as Record<string, unknown>;
  if (v !== 1 || !Array.isArray(passkeys) || passkeys.length > PASSKEYS_MAX) return undefined;
  const out: StoredPasskey[] = [];
  for (const entry of passkeys) {
    const key = parseEntry(entry);
    if (key === undefined) return undefined;
    out.push(key);
  }
  return out;
}

function parseEntry(entry: unknown): StoredPasskey | undefined {
  if (typeof entry !== 'object' || entry === null) return undefined;
  const { id, label, alg, jwk, sign_count: signCount, created_at: createdAt } = entry as Record<string, unknown>;
  if (typeof id !== 'string' || !/^[A-Za-z0-9_-]{1,1400}$/.test(id)) return undefined;
  if (typeof label !== 'string' || typeof createdAt !== 'string') return undefined;
  if (typeof signCount !== 'number' || !Number.isSafeInteger(signCount) || signCount < 0) return undefined;
  if (typeof jwk !== 'object' || jwk === null) return undefined;
  const key = jwk as Record<string, unknown>;
  const coordinate = (value: unknown): value is string => typeof value === 'string' && /^[A-Za-z0-9_-]{43}$/.test(value);
  if (alg === -7 && key.kty === 'EC' && key.crv === 'P-256' && coordinate(key.x) && coordinate(key.y)) {
    return { id, label, alg, jwk: { kty: 'EC', crv: 'P-256', x: key.x, y: key.y }, signCount, createdAt };
  }
  if (alg === -8 && key.kty === 'OKP' && key.crv === 'Ed25519' && coordinate(key.x)) {
    return { id, label, alg, jwk: { kty: 'OKP', crv: 'Ed25519', x: key.x }, signCount, createdAt };
  }
  return undefined;
}

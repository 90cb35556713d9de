/**
 * The retired AP2 mandate keys' public halves (mandate.retired.json, docs/ap2.md): GET /ap2/jwks
 * lists each until every mandate it signed has expired. Public keys only; the private key and its
 * rotation are the signer's (src/signer/mandate-key.ts).
 */
import { DataDirError } from './data-dir-error.js';
import { DATA_FILES, dataFilePath } from './data-files.js';
import { readPrivateFile } from './read-private-file.js';
import { p256PublicJwkFromUntrusted, p256Thumbprint, type P256PublicJwk } from '../ap2/p256.js';
import { TTL_MINUTES_MAX } from '../validate/ttl.js';

const RETIRED_FILE_BYTES_MAX = 64 * 1024;
/** AP2's verifiers accept an `exp` up to 300 s in the past (`_check_time_claims`). */
export const AP2_CLOCK_SKEW_SECONDS = 300;
/**
 * A retired key stays listed for the longest lifetime a mandate can have, plus AP2's skew: every
 * mandate it signed has expired by then, whatever the ledger says.
 */
export const RETIRED_KEY_LISTED_SECONDS = TTL_MINUTES_MAX * 60 + AP2_CLOCK_SKEW_SECONDS;

/** A retired mandate key's public half and until when GET /ap2/jwks lists it (Unix seconds). */
export interface RetiredMandateKey {
  jwk: P256PublicJwk;
  kid: string;
  until: number;
}

/** retiredMandateKeysPath returns the path of mandate.retired.json. */
export function retiredMandateKeysPath(home: string): string {
  return dataFilePath(home, DATA_FILES.mandateKeysRetired);
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

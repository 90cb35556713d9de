import { foldFieldName, isCardFieldName } from '../validate/card-field-names.js';
import { memoizeNames } from '../validate/name-memo.js';

/**
 * Names compared after folding (lower case, letters and digits only), so `secretKey`,
 * `secret_key` and `Secret-Key` are the same name. These lists err towards redacting: a public
 * value hidden from a log costs little, a secret shown costs everything.
 */

/** Fragments that make a name secret wherever they occur (`setup_token`, `admin_password`). */
const SECRET_FRAGMENTS: readonly string[] = [
  'token',
  'secret',
  'password',
  'passwd',
  'passphrase',
  'cookie',
  'signature',
  'private',
  'credential',
  'bearer',
  'apikey',
  'adminkey',
  'sessionid',
];

/**
 * Whole names that are secret. `authorization` is whole-name only, because `authorization_id`
 * and `authorization_type` are ordinary fields of this product; `d` is a JWK's private member.
 */
const SECRET_NAMES: ReadonlySet<string> = new Set(['authorization', 'proxyauthorization', 'auth', 'key', 'd', 'seed', 'mnemonic']);

/** Names ending in `key` that are public: everything else ending in `key` is treated as secret. */
const PUBLIC_KEY_NAMES: ReadonlySet<string> = new Set(['publickey', 'idempotencykey']);

/**
 * looksSecretName reports whether a field name suggests its value is a secret (a token, key,
 * password, signature or cookie) or card data (PAN, CVV, expiry, track data, per the card-data
 * guard's list). Logs write such values as "[redacted]" and the audit log refuses such fields.
 */
export const looksSecretName = memoizeNames(judgeSecretName);

function judgeSecretName(name: string): boolean {
  const folded = foldFieldName(name);
  if (SECRET_NAMES.has(folded)) return true;
  if (SECRET_FRAGMENTS.some((fragment) => folded.includes(fragment))) return true;
  if (folded.endsWith('key') && !PUBLIC_KEY_NAMES.has(folded)) return true;
  return isCardFieldName(name);
}

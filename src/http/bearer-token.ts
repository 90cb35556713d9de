import { timingSafeEqual } from 'node:crypto';
import { sha256 } from '@noble/hashes/sha2.js';
import type { Principal } from '../core/principal.js';
import { utf8 } from '../crypto/base64url.js';
import { LatchError } from '../errors/latch-error.js';

/** A token the front door accepts, and whom it stands for. */
export interface Credential {
  token: string;
  principal: Principal;
}

/**
 * checkBearer returns whom the request's token stands for. The request must carry exactly one
 * `Authorization: Bearer <token>` header whose token equals one of the current credentials,
 * compared in constant time against every one of them (so the timing says nothing about which
 * matched, or how many there are to try). No header at all is `missing_bearer_token`; anything
 * else (another scheme, an empty token, a wrong token, two headers) is `invalid_bearer_token`.
 * The presented token is hashed once and its hash compared with each credential's hash by
 * timingSafeEqual, with no early exit, so neither the lengths nor the position of a match leak. A
 * token in the query string or a cookie is never looked at, so such a request counts as having
 * no token.
 */
export function checkBearer(rawHeaders: readonly string[], credentials: ReadonlyArray<Credential>): Principal {
  const values: string[] = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    if ((rawHeaders[i] as string).toLowerCase() === 'authorization') values.push(rawHeaders[i + 1] as string);
  }
  if (values.length === 0) throw new LatchError('missing_bearer_token');
  if (values.length > 1) throw new LatchError('invalid_bearer_token');
  const presented = bearerCredential(values[0] as string);
  // Every comparison runs, even for a malformed header, so the answer's timing says nothing about why.
  const presentedHash = sha256(utf8(presented ?? ''));
  let found: Principal | undefined;
  for (const credential of credentials) {
    const equal = timingSafeEqual(presentedHash, sha256(utf8(credential.token)));
    if (equal && credential.token !== '') found ??= credential.principal;
  }
  if (presented === undefined || presented === '' || found === undefined) throw new LatchError('invalid_bearer_token');
  return found;
}

/** bearerCredential returns the credential of a `Bearer` authorization value (scheme in any case). */
function bearerCredential(value: string): string | undefined {
  const space = value.indexOf(' ');
  if (space === -1) return undefined;
  if (value.slice(0, space).toLowerCase() !== 'bearer') return undefined;
  return value.slice(space + 1);
}

import { secretsEqual } from '../crypto/constant-time.js';
import { LatchError } from '../errors/latch-error.js';

/**
 * checkBearer accepts the request only when it carries exactly one `Authorization: Bearer <token>`
 * header whose token equals the expected one, compared in constant time. No header at all is
 * `missing_bearer_token`; anything else (another scheme, an empty token, a wrong token, two
 * headers) is `invalid_bearer_token`. A token in the query string or a cookie is never looked at,
 * so such a request counts as having no token.
 */
export function checkBearer(rawHeaders: readonly string[], expected: string): void {
  const values: string[] = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    if ((rawHeaders[i] as string).toLowerCase() === 'authorization') values.push(rawHeaders[i + 1] as string);
  }
  if (values.length === 0) throw new LatchError('missing_bearer_token');
  if (values.length > 1) throw new LatchError('invalid_bearer_token');
  const presented = bearerCredential(values[0] as string);
  // The comparison runs even for a malformed header, so the answer's timing says nothing about why.
  const matches = secretsEqual(presented ?? '', expected);
  if (presented === undefined || presented === '' || !matches) throw new LatchError('invalid_bearer_token');
}

/** bearerCredential returns the credential of a `Bearer` authorization value (scheme in any case). */
function bearerCredential(value: string): string | undefined {
  const space = value.indexOf(' ');
  if (space === -1) return undefined;
  if (value.slice(0, space).toLowerCase() !== 'bearer') return undefined;
  return value.slice(space + 1);
}

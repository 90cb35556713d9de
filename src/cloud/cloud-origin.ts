/**
 * The one rule for a cloud origin, used by config.json, LATCH_CLOUD_URL, `latch setup --cloud`
 * and the cloud client alike, so that no two of them can disagree about which cloud is allowed.
 */

import { isLoopbackName } from '../http/loopback.js';

/**
 * cloudOrigin returns the origin of a cloud URL (scheme, host and port, no trailing slash), or
 * undefined when it is unusable: not http(s), carrying user info, a path, a query or a fragment
 * (even an empty one), or plain http to a host other than 127.0.0.1, localhost and [::1].
 * Requests are signed, but an answer over plain http from a remote host could be altered.
 *
 * Plain `http://localhost` becomes `http://127.0.0.1`, as the client does for the daemon's URL:
 * where `localhost` resolves to ::1 first, another local user listening on [::1] at that port
 * would sit between the daemon and the cloud. Over https the name stays, since the certificate
 * is checked against it (docs/decisions.md §20).
 */
export function cloudOrigin(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
  if (url.username !== '' || url.password !== '' || url.search !== '' || url.hash !== '') return undefined;
  if (url.pathname !== '/' || text.includes('?') || text.includes('#')) return undefined;
  if (url.protocol === 'http:' && !isLoopbackName(url.hostname)) return undefined;
  if (url.protocol === 'http:' && url.hostname === 'localhost') return `http://127.0.0.1${url.port === '' ? '' : `:${url.port}`}`;
  return url.origin;
}

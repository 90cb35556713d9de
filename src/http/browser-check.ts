import type { IncomingHttpHeaders } from 'node:http';

/**
 * fromBrowser reports whether a request shows any sign of coming from a web page: an `Origin`
 * header (even empty), a `Referer`, or `Sec-Fetch-Site` other than `none` (docs/decisions.md §8). Clients
 * of the daemon are programs, and programs send none of these, so refusing them costs nothing and
 * closes cross-site requests from a browser on the same machine.
 */
export function fromBrowser(headers: IncomingHttpHeaders): boolean {
  if (headers['origin'] !== undefined) return true;
  if (headers['referer'] !== undefined) return true;
  const fetchSite = headers['sec-fetch-site'];
  return fetchSite !== undefined && fetchSite !== 'none';
}

/**
 * The Host allow-list of docs/decisions.md §8. A browser that a DNS-rebinding attack points at the daemon
 * still sends the attacker's name in Host, so only the loopback names for this exact port pass.
 */

import { isLoopbackName } from './loopback.js';

/**
 * validHost reports whether the request carries exactly one Host header whose value is
 * `127.0.0.1:<port>`, `localhost:<port>` (any case) or `[::1]:<port>` for the listener's port.
 * rawHeaders is Node's flat name/value list, which keeps duplicates that `headers` would merge.
 */
export function validHost(rawHeaders: readonly string[], port: number): boolean {
  let value: string | undefined;
  let count = 0;
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    if ((rawHeaders[i] as string).toLowerCase() !== 'host') continue;
    count++;
    value = rawHeaders[i + 1];
  }
  if (count !== 1 || value === undefined) return false;
  const suffix = `:${port}`;
  if (!value.endsWith(suffix)) return false;
  const name = value.slice(0, -suffix.length);
  return isLoopbackName(name);
}

/**
 * originFormTarget reports whether a request target is origin-form (`/path?query`). Absolute-form
 * (`http://evil/...`) would name another host than the Host header; `*` and authority-form are
 * never meaningful to this API.
 */
export function originFormTarget(target: string | undefined): target is string {
  return target !== undefined && target.startsWith('/');
}

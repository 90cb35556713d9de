import { isIPv4 } from 'node:net';

/**
 * The loopback names a URL or a Host header may carry, as a URL spells them (the IPv6 address in
 * brackets): written once (docs/decisions.md §29.6); the front door's Host check, the client's
 * daemon URL, the cloud origin, agent identity's target URLs and the sandbox derive from it.
 */
export const LOOPBACK_HOSTS = ['127.0.0.1', 'localhost', '[::1]'] as const;

/** isLoopbackHost reports whether a URL's hostname or a Host header's name (any case) is a loopback name. */
export function isLoopbackName(name: string): boolean {
  return (LOOPBACK_HOSTS as readonly string[]).includes(name.toLowerCase());
}

/**
 * isLoopbackAddress reports whether host is a literal loopback address: 127.0.0.0/8 or `::1`.
 * Names such as `localhost` are refused, since what they resolve to is not ours to decide.
 */
export function isLoopbackAddress(host: string): boolean {
  if (host === '::1') return true;
  return isIPv4(host) && host.startsWith('127.');
}

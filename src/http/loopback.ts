import { isIPv4 } from 'node:net';

/**
 * isLoopbackAddress reports whether host is a literal loopback address: 127.0.0.0/8 or `::1`.
 * Names such as `localhost` are refused, since what they resolve to is not ours to decide.
 */
export function isLoopbackAddress(host: string): boolean {
  if (host === '::1') return true;
  return isIPv4(host) && host.startsWith('127.');
}

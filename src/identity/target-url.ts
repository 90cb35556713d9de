/**
 * The URL rules of a request to sign (docs/decisions.md §23.3): absolute `https` (plain `http`
 * only to a loopback host), no user info, no fragment, at most 2,048 characters, and no card data
 * anywhere in it. The checked URL gives the request's authority, path and query exactly as the
 * agent's HTTP client will send them, since both come from the WHATWG URL parser.
 */
import { invalidRequest } from '../errors/latch-error.js';
import { isLoopbackName } from '../http/loopback.js';
import { assertNoCardData } from '../validate/card-data-guard.js';
import type { WebRequestTarget } from './web-bot-auth.js';

/** The longest URL accepted, in characters. */
export const URL_CHARS_MAX = 2048;

/** A checked URL: what the signature covers, and the host the policy and the audit line name. */
export interface CheckedTarget extends Omit<WebRequestTarget, 'contentDigest'> {
  /** The host name without port or brackets, lower case, without a trailing dot. */
  readonly host: string;
}

/** isLoopbackHost reports whether a URL's hostname is this machine: a loopback name, or any of 127.0.0.0/8. */
export function isLoopbackHost(hostname: string): boolean {
  return isLoopbackName(hostname) || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
}

/** checkTargetUrl applies the URL rules to text and returns the parts a signature covers. */
export function checkTargetUrl(text: string, param = 'url'): CheckedTarget {
  const refuse = (why: string): never => {
    throw invalidRequest(param, `${param} must be an absolute https URL: ${why}.`);
  };
  if (text.length > URL_CHARS_MAX) refuse(`at most ${URL_CHARS_MAX} characters`);
  // The raw text is checked first: the parser would drop an empty fragment and fix up spaces.
  if (text.includes('#')) refuse('no fragment');
  if (/[\s\x00-\x1f\x7f]/.test(text)) refuse('no spaces or control characters');
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return refuse('it does not parse');
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackHost(url.hostname))) refuse('https (plain http only to a loopback host)');
  if (url.username !== '' || url.password !== '' || /^[a-z][a-z0-9+.-]*:\/\/[^/?]*@/i.test(text)) refuse('no user info');
  if (url.hostname === '') refuse('it needs a host');
  const host = url.hostname.endsWith('.') ? url.hostname.slice(0, -1) : url.hostname;
  // One trailing dot is the DNS root and names the same host; a host with an empty label besides
  // (`casino.example..`) is no host name, and would otherwise slip past the merchant deny rules,
  // which compare names label by label.
  if (host === '' || host.startsWith('.') || host.endsWith('.') || host.includes('..')) refuse('a host name without empty labels (at most one trailing dot)');
  // Card data anywhere in it is refused, raw or percent-encoded, in the host, the path or the query.
  assertNoCardData({ path: url.pathname, query: url.search, headerValues: [text, host] });
  return { authority: url.host, path: url.pathname === '' ? '/' : url.pathname, query: url.search, host };
}

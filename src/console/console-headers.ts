/** The headers on every console answer (spec owner-console §4): no inline code, no framing, no leaks. */
export const CONSOLE_SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'cache-control': 'no-store',
});

/** Where the console's JSON API lives; every other path is a page or an asset. */
export const CONSOLE_API_PREFIX = '/console/api';
/** Variant A's routes, called as the owner, are mounted under this prefix. */
export const CONSOLE_A_PREFIX = `${CONSOLE_API_PREFIX}/a`;

/** consoleOrigin is the one origin the console's pages run in. */
export function consoleOrigin(port: number): string {
  return `http://localhost:${port}`;
}

/**
 * The session cookie's name. Cookies are not isolated by port, so a page on another localhost
 * port is the same site and may set cookies the console's page then sends (docs/decisions.md
 * §29.4). The `__Host-` prefix makes a browser refuse any such cookie that is not Secure, has a
 * Domain or another Path than `/`, so none can shadow this one with a longer path; and the front
 * door takes, of every copy sent, only one that names a live session, so a planted copy is ignored.
 */
export const SESSION_COOKIE = '__Host-latch_console';

/** The most copies of the cookie looked at in one request (TigerStyle: a limit on everything). */
const COOKIE_COPIES_MAX = 4;

/**
 * sessionCookie is the Set-Cookie value for a new session: HttpOnly, SameSite=Strict, Path=/ (the
 * spec's), and Secure, which the `__Host-` prefix needs; browsers take Secure cookies from
 * http://localhost, a potentially trustworthy origin.
 */
export function sessionCookie(value: string): string {
  return `${SESSION_COOKIE}=${value}; HttpOnly; SameSite=Strict; Path=/; Secure`;
}

/** expiredSessionCookie ends the cookie in the browser at logout. */
export function expiredSessionCookie(): string {
  return `${SESSION_COOKIE}=; HttpOnly; SameSite=Strict; Path=/; Secure; Max-Age=0`;
}

/**
 * cookieValues lists the well-formed values of the session cookie in a Cookie header, at most
 * COOKIE_COPIES_MAX (none when more copies are sent: nothing legitimate sends that many).
 */
export function cookieValues(header: string | undefined): string[] {
  if (header === undefined) return [];
  const found: string[] = [];
  for (const part of header.split(';')) {
    const [name, ...rest] = part.trim().split('=');
    if (name !== SESSION_COOKIE) continue;
    const value = rest.join('=');
    if (/^[A-Za-z0-9_-]{43}$/.test(value) && !found.includes(value)) found.push(value);
    if (found.length > COOKIE_COPIES_MAX) return [];
  }
  return found;
}

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

/** The session cookie's name; its attributes are fixed by the spec. */
export const SESSION_COOKIE = 'latch_console';

/** sessionCookie is the Set-Cookie value for a new session (HttpOnly, SameSite=Strict, Path=/). */
export function sessionCookie(value: string): string {
  return `${SESSION_COOKIE}=${value}; HttpOnly; SameSite=Strict; Path=/`;
}

/** expiredSessionCookie ends the cookie in the browser at logout. */
export function expiredSessionCookie(): string {
  return `${SESSION_COOKIE}=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0`;
}

/** cookieValue finds the session cookie in a Cookie header; a second copy is refused as ambiguous. */
export function cookieValue(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  let found: string | undefined;
  for (const part of header.split(';')) {
    const [name, ...rest] = part.trim().split('=');
    if (name !== SESSION_COOKIE) continue;
    if (found !== undefined) return undefined;
    found = rest.join('=');
  }
  return found !== undefined && /^[A-Za-z0-9_-]{43}$/.test(found) ? found : undefined;
}

/**
 * The one shape of a console login link (docs/decisions.md §27.1): the console's origin on this
 * machine and a one-time code in the fragment. `latch console` writes the link into a page the
 * browser opens from the owner's own files; anything else a daemon (or whatever answers on its
 * port) sends back (another host, another scheme, markup) must not be written there or opened.
 */

/** `http://localhost:PORT/login#CODE`, CODE 32 random bytes in base64url (console-sessions.ts). */
const CONSOLE_LOGIN_URL = /^http:\/\/localhost:([1-9][0-9]{0,4})\/login#[A-Za-z0-9_-]{43}$/;

/** isConsoleLoginUrl reports whether url is exactly a console login link on a valid port. */
export function isConsoleLoginUrl(url: unknown): url is string {
  if (typeof url !== 'string') return false;
  const port = CONSOLE_LOGIN_URL.exec(url)?.[1];
  return port !== undefined && Number(port) <= 65_535;
}

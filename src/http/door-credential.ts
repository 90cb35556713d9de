/**
 * Step 4 of the front door (docs/decisions.md §8, §29.2): the one credential of a listener and the
 * principal it names. On A and B that is the bearer (a token, or an owner session `los_…`); on the
 * owner console the session cookie with the session's CSRF header, and never a bearer.
 */
import type { IncomingMessage } from 'node:http';
import type { OwnerPresence } from '../owner/owner-presence.js';
import { OWNER_SESSION_PREFIX } from '../owner/owner-sessions.js';
import { OWNER, type Principal } from '../core/principal.js';
import { secretsEqual } from '../verify/constant-time.js';
import { LatchError } from '../errors/latch-error.js';
import type { JsonValue } from '../json/parse-json.js';
import { checkBearer, type Credential } from './bearer-token.js';
import type { Route } from './route.js';
import type { RouteMatch } from './router.js';

/**
 * What makes a listener the owner console's: a browser may load its pages, its one credential is
 * the session cookie with the session's CSRF header, and presence may come as a passkey.
 */
export interface BrowserListener {
  /** The one origin its pages run in: anything but GET and HEAD must carry exactly this Origin. */
  origin: (port: number) => string;
  /**
   * The session a cookie value names (a look-up that does not count as use), restarting its idle
   * time once a request has passed the CSRF check, and ending one at logout.
   */
  sessions: { session(cookie: string): { readonly csrf: string } | undefined; touch(cookie: string): void; logout(cookie: string): void };
  /** Lists the session cookie's well-formed values in a Cookie header (a page on another port may plant more). */
  cookieValues: (header: string | undefined) => string[];
  /**
   * Proves presence with a passkey assertion made for this request (an approval's own challenge
   * for its approve route; elsewhere a challenge bound to this method, path and body); resolves
   * the credential id, or throws passkey_not_verified.
   */
  provePasskey: (assertion: JsonValue, route: Route, params: Readonly<Record<string, string>>, request: { method: string; path: string; rawBody: Uint8Array }) => Promise<string>;
  /** Headers on every answer, errors included (the console's CSP and friends). */
  answerHeaders: Readonly<Record<string, string>>;
}

/** The console's CSRF header: the session's token, which a page reads from its meta tag. */
export const CSRF_HEADER = 'x-latch-csrf';

/** What the credential check needs of its listener. */
export interface CredentialRules {
  /** Every token accepted now and whom it stands for (A and B). */
  credentials: () => ReadonlyArray<Credential>;
  presence: Pick<OwnerPresence, 'useSession' | 'endSession'>;
  /** The console's rules; absent on A and B. */
  browser?: BrowserListener;
}

/** Who a request's credential names, and what it carries. */
export interface AdmittedCredential {
  /** Undefined only on a 'public' route. */
  principal: Principal | undefined;
  /** The owner session (`los_…`) presented as a bearer: the owner, with presence. */
  ownerSession?: string;
  /** The console session the cookie names. */
  consoleSession?: { readonly csrf: string };
  /** Ends the session the request came with. */
  end?: () => boolean;
}

/**
 * admitCredential checks the one credential of the listener, for every request except those that
 * match a 'public' route: checking it before the 404/405 decision means an unauthenticated caller
 * cannot probe the route table. On A and B that is the bearer (a token, or an owner session); on
 * the console the session cookie and the session's CSRF header. A console page, public, still sees
 * the session the cookie names, without its CSRF header.
 */
export function admitCredential(options: CredentialRules, request: IncomingMessage, match: RouteMatch | undefined): AdmittedCredential {
  const isPublic = match?.route.access === 'public';
  const { browser } = options;
  if (browser !== undefined) {
    // Of every copy sent, exactly one may name a live session: a planted copy names none and is ignored.
    const live = browser.cookieValues(request.headers.cookie).flatMap((value) => {
      const found = browser.sessions.session(value);
      return found === undefined ? [] : [{ value, found }];
    });
    const cookie = live.length === 1 ? live[0]?.value : undefined;
    const session = live.length === 1 ? live[0]?.found : undefined;
    const end = () => {
      browser.sessions.logout(cookie as string);
      return true;
    };
    if (isPublic) return { principal: undefined, ...(session !== undefined && { consoleSession: session, end }) };
    if (session === undefined) throw new LatchError('console_login_required');
    const csrf = request.headers[CSRF_HEADER];
    if (typeof csrf !== 'string' || !secretsEqual(csrf, session.csrf)) throw new LatchError('console_csrf_invalid');
    // Only a request the session's own page made (it knows the CSRF token) counts as use: a page on
    // another port can send the cookie (an <img>), never the header.
    browser.sessions.touch(cookie as string);
    return { principal: OWNER, consoleSession: session, end };
  }
  if (isPublic) return { principal: undefined };
  const session = ownerSession(request.rawHeaders, options);
  if (session !== undefined) return { principal: OWNER, ownerSession: session, end: () => options.presence.endSession(session) };
  return { principal: bearerPrincipal(request.rawHeaders, options) };
}

/**
 * ownerSession returns the presented bearer when it is a live owner session (`los_…`), and
 * undefined for any other request; checking it counts as the session's use.
 */
function ownerSession(rawHeaders: readonly string[], options: CredentialRules): string | undefined {
  const values = headerValues(rawHeaders, 'authorization');
  if (values.length !== 1) return undefined;
  const value = values[0] as string;
  const space = value.indexOf(' ');
  if (space === -1 || value.slice(0, space).toLowerCase() !== 'bearer') return undefined;
  const token = value.slice(space + 1);
  if (!token.startsWith(OWNER_SESSION_PREFIX) || !options.presence.useSession(token)) return undefined;
  return token;
}

/**
 * bearerPrincipal checks the bearer against the daemon's tokens. A `los_…` bearer that is no live
 * session (and, by a one-in-2^24 chance, no token either) is refused saying that the session ended.
 */
function bearerPrincipal(rawHeaders: readonly string[], options: CredentialRules): Principal {
  try {
    return checkBearer(rawHeaders, options.credentials());
  } catch (error) {
    const values = headerValues(rawHeaders, 'authorization');
    const looksLikeSession = values.length === 1 && /^bearer los_/i.test(values[0] as string);
    if (error instanceof LatchError && error.code === 'invalid_bearer_token' && looksLikeSession) {
      throw new LatchError('invalid_bearer_token', { message: 'The owner session has ended (it was idle, reached its lifetime, or the daemon restarted): open a new one.' });
    }
    throw error;
  }
}

/** headerValues lists every value of one header, in order, from Node's flat raw list (which keeps duplicates). */
export function headerValues(rawHeaders: readonly string[], name: string): string[] {
  const values: string[] = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    if ((rawHeaders[i] as string).toLowerCase() === name) values.push(rawHeaders[i + 1] as string);
  }
  return values;
}

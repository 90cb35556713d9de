import type { IncomingHttpHeaders } from 'node:http';
import type { Principal } from '../core/principal.js';
import type { JsonValue } from '../json/parse-json.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD';

/** What a handler sees: the request after the front door, with no socket or response object. */
export interface RequestContext {
  method: string;
  /** The path as received (percent-encoded), without the query. */
  path: string;
  query: URLSearchParams;
  /** The raw query string without `?` (the proxy forwards it unchanged). */
  rawQuery: string;
  /** Path parameters named in the route pattern, percent-decoded. */
  params: Readonly<Record<string, string>>;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body of a POST/PUT/PATCH, or undefined when there is none. */
  body: JsonValue | undefined;
  /** The body bytes exactly as received (the proxy signs and forwards these). */
  rawBody: Uint8Array;
  requestId: string;
  /** Whom the bearer token stands for; undefined only on a 'public' route. */
  principal: Principal | undefined;
  /**
   * True when the front door saw the owner's presence proved on this request: an owner session,
   * or a right passphrase sent with it (docs/decisions.md §21). False otherwise, also when no
   * presence factor is configured (then an 'owner_present' route admits the token alone).
   */
  ownerPresent: boolean;
  /** The passkey that proved presence, on a call from the owner console (docs/decisions.md §25). */
  presenceCredentialId?: string;
  /** Ends the owner session this request came with (DELETE /owner/sessions/current, the console's logout); absent without one. */
  endOwnerSession?: () => boolean;
  /**
   * The console session the request's cookie names, on the console listener (docs/decisions.md
   * §29.2): its CSRF token, which a page carries in a meta tag. Set also on public routes (the
   * pages), where the session is looked up but not required.
   */
  consoleSession?: { readonly csrf: string };
  /** The caller's User-Agent, for the audit log. */
  userAgent: string;
  /** Aborted when the client goes away or the server shuts down. */
  signal: AbortSignal;
  /**
   * Ends a hold for the owner's decision (`Prefer: wait`) early: aborted with signal, and as soon
   * as the daemon begins to stop. Absent, signal does.
   */
  holdSignal?: AbortSignal;
}

/** A JSON answer. */
export interface JsonResult {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** An answer passed through unchanged (the signing proxy's upstream body). */
export interface RawResult {
  status: number;
  rawBody: Uint8Array;
  headers: Record<string, string>;
}

/**
 * A live answer (server-sent events, the console's approvals stream): the front door writes the
 * headers, then `pump` writes events until the client leaves or the server stops (the signal).
 */
export interface EventStreamResult {
  readonly status: 200;
  readonly pump: (write: (event: string, data: string) => boolean, signal: AbortSignal) => Promise<void>;
}

export type RouteResult = JsonResult | RawResult | EventStreamResult;

export type RouteHandler = (context: RequestContext) => Promise<RouteResult> | RouteResult;

/**
 * Who may call a route: 'public' needs no token (Variant A's GET /health, POST /owner/sessions);
 * 'agents' admits the owner and every agent; 'owner' needs the daemon token or an owner session,
 * and an agent's token gets 403 agent_not_permitted; 'owner_present' is 'owner' plus the owner's
 * presence once a presence factor is configured (403 owner_presence_required; docs/decisions.md §21).
 */
export type RouteAccess = 'public' | 'agents' | 'owner' | 'owner_present';

/** Every access level, from the least to the most demanding. */
export const ROUTE_ACCESS_LEVELS: readonly RouteAccess[] = ['public', 'agents', 'owner', 'owner_present'];

/** One entry of a route table. `pattern` is `/cards/:card_id` style, or ends in `/*` for a prefix. */
export interface Route {
  method: HttpMethod | '*';
  pattern: string;
  access: RouteAccess;
  /** Largest body accepted, in bytes; defaults to the front door's 64 KiB. */
  bodyBytesMax?: number;
  /**
   * The body is forwarded byte for byte (the /v1 proxy): presence is then proved only by a session
   * or the Latch-Owner-Passphrase header, and a `passphrase` member in the body is refused, so that
   * a passphrase can never travel on to the cloud.
   */
  forwardsBody?: boolean;
  /**
   * The prefix a route table was mounted under on this listener (Variant A's routes under
   * `/console/api/a` on the console): its handler sees the path without it.
   */
  mountPrefix?: string;
  handler: RouteHandler;
}

/**
 * mountRoutes serves a route table under a prefix on another listener (Variant A's routes under
 * `/console/api/a` on the console): each pattern gains the prefix, each handler sees the path
 * without it, and a 'public' route needs that listener's credential like the others.
 */
export function mountRoutes(prefix: string, routes: readonly Route[]): Route[] {
  return routes.map((route) => ({
    ...route,
    pattern: `${prefix}${route.pattern}`,
    access: route.access === 'public' ? 'owner' : route.access,
    mountPrefix: prefix,
  }));
}

/** isRawResult reports whether a result carries raw bytes rather than a JSON body. */
export function isRawResult(result: RouteResult): result is RawResult {
  return 'rawBody' in result;
}

/** isEventStream reports whether a result is a live event stream. */
export function isEventStream(result: RouteResult): result is EventStreamResult {
  return 'pump' in result;
}

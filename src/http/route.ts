import type { IncomingHttpHeaders } from 'node:http';
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
  /** The caller's User-Agent, for the audit log. */
  userAgent: string;
  /** Aborted when the client goes away or the server shuts down. */
  signal: AbortSignal;
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

export type RouteResult = JsonResult | RawResult;

export type RouteHandler = (context: RequestContext) => Promise<RouteResult> | RouteResult;

/** One entry of a route table. `pattern` is `/cards/:card_id` style, or ends in `/*` for a prefix. */
export interface Route {
  method: HttpMethod | '*';
  pattern: string;
  /** Whether the bearer token is required (false only for Variant A's /health). */
  auth: 'token' | 'none';
  /** Largest body accepted, in bytes; defaults to the front door's 64 KiB. */
  bodyBytesMax?: number;
  handler: RouteHandler;
}

/** isRawResult reports whether a result carries raw bytes rather than a JSON body. */
export function isRawResult(result: RouteResult): result is RawResult {
  return 'rawBody' in result;
}

import type { IncomingMessage } from 'node:http';
import { invalidRequest, LatchError } from '../errors/latch-error.js';
import { parseJson, type JsonValue } from '../json/parse-json.js';
import { isJsonContentType } from './content-type.js';
import { LOCAL_BODY_BYTES_MAX, readBody } from './read-body.js';

/** Methods that never carry a body on this API. */
const BODILESS_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'DELETE']);

/** A request body after the front door: the exact bytes and their parsed JSON. */
export interface RequestBody {
  rawBody: Uint8Array;
  body: JsonValue | undefined;
}

const EMPTY: RequestBody = { rawBody: new Uint8Array(0), body: undefined };

// fatal: malformed UTF-8 is refused rather than replaced; ignoreBOM: a BOM is kept and then
// refused by the JSON parser, since RFC 8259 forbids sending one.
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * declaresBody reports whether the request framing announces body bytes: any Transfer-Encoding,
 * or a Content-Length other than 0.
 */
export function declaresBody(request: IncomingMessage): boolean {
  if (request.headers['transfer-encoding'] !== undefined) return true;
  const length = request.headers['content-length'];
  return length !== undefined && length !== '0';
}

/**
 * chunkedOnly reports whether the request's Transfer-Encoding, if any, is exactly `chunked`.
 * Node accepts a list that ends in chunked (`gzip, chunked`) and hands over the bytes still
 * encoded; a body whose declared coding nobody decodes must not be read as if it were plain.
 */
export function chunkedOnly(request: IncomingMessage): boolean {
  const coding = request.headers['transfer-encoding'];
  return coding === undefined || coding.trim().toLowerCase() === 'chunked';
}

/**
 * readRequestBody applies the body rules of the front door in order: GET, HEAD and DELETE carry no
 * body (400); a Transfer-Encoding other than plain `chunked` is refused (400, param `headers`);
 * other methods need `Content-Type: application/json` (415), a body of at most
 * bodyBytesMax bytes (413), that is non-empty UTF-8 JSON within the parser's depth and member
 * limits (400 `invalid_request`, param `body`).
 */
export async function readRequestBody(request: IncomingMessage, bodyBytesMax: number = LOCAL_BODY_BYTES_MAX): Promise<RequestBody> {
  const method = request.method ?? '';
  if (BODILESS_METHODS.has(method)) {
    if (declaresBody(request)) throw invalidRequest('body', `${method} requests must not carry a body.`);
    return EMPTY;
  }
  if (!chunkedOnly(request)) throw invalidRequest('headers', 'Transfer-Encoding must be chunked; no other transfer coding is supported.');
  if (!isJsonContentType(request.headers['content-type'])) throw new LatchError('unsupported_media_type');
  const rawBody = await readBody(request, bodyBytesMax);
  if (rawBody.byteLength === 0) throw invalidRequest('body', `${method} requests need a JSON body.`);
  let text: string;
  try {
    text = UTF8.decode(rawBody);
  } catch {
    throw invalidRequest('body', 'The body is not valid UTF-8.');
  }
  return { rawBody, body: parseJson(text) };
}

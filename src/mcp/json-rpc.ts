/**
 * JSON-RPC 2.0 as MCP uses it (https://www.jsonrpc.org/specification): classifying an incoming
 * message, and writing responses whose `id` is echoed byte for byte.
 */
import { JsonNumber, isJsonObject, type JsonObject, type JsonValue } from '../json/parse-json.js';

/** The standard error codes. */
export const RPC_ERROR = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  /** Implementation-defined (the -32000..-32099 range): too many requests in flight. */
  serverBusy: -32000,
} as const;

/** A request id: a string or a number, kept as its source text so that it is echoed exactly. */
export type RpcId = string | JsonNumber;

/** What one incoming message is. */
export type Incoming =
  | { kind: 'request'; id: RpcId; method: string; params: JsonObject | undefined; paramsValid: boolean }
  | { kind: 'notification'; method: string; params: JsonObject | undefined }
  | { kind: 'response'; id: RpcId | undefined; result: JsonValue | undefined; error: JsonValue | undefined }
  | { kind: 'invalid'; id: RpcId | null; message: string };

/** classifyMessage reads one parsed JSON-RPC message (not a batch). */
export function classifyMessage(value: JsonValue): Incoming {
  if (!isJsonObject(value)) return { kind: 'invalid', id: null, message: 'A JSON-RPC message must be a JSON object.' };
  const id = rpcId(value['id']);
  const validId = id === undefined ? null : id;
  if (value['jsonrpc'] !== '2.0') return { kind: 'invalid', id: validId, message: 'jsonrpc must be "2.0".' };
  const method = value['method'];
  if (method === undefined) {
    // A response to a request of ours (elicitation/create): the session matches it by id.
    if (Object.hasOwn(value, 'result') || Object.hasOwn(value, 'error')) return { kind: 'response', id, result: value['result'], error: value['error'] };
    return { kind: 'invalid', id: validId, message: 'A request needs a method.' };
  }
  if (typeof method !== 'string' || method.length === 0 || method.length > 128) return { kind: 'invalid', id: validId, message: 'method must be a non-empty string.' };
  if (Object.hasOwn(value, 'id') && id === undefined) return { kind: 'invalid', id: null, message: 'id must be a string or a number (MCP forbids null).' };
  const rawParams = value['params'];
  const params = isJsonObject(rawParams) ? rawParams : undefined;
  const paramsValid = rawParams === undefined || params !== undefined;
  if (id === undefined) return { kind: 'notification', method, params };
  return { kind: 'request', id, method, params, paramsValid };
}

function rpcId(value: JsonValue | undefined): RpcId | undefined {
  if (typeof value === 'string' && value.length <= 256) return value;
  // An id is an integer in practice; a fraction or exponent is accepted and echoed as sent.
  if (value instanceof JsonNumber && value.text.length <= 32) return value;
  return undefined;
}

/** resultLine is a success response, one line of JSON. */
export function resultLine(id: RpcId, result: unknown): string {
  return withId(id, JSON.stringify({ result }));
}

/** errorLine is an error response; `id` is null when the request's id could not be read. */
export function errorLine(id: RpcId | null, code: number, message: string, data?: unknown): string {
  const error: Record<string, unknown> = { code, message };
  if (data !== undefined) error['data'] = data;
  return withId(id, JSON.stringify({ error }));
}

// The id goes in as its source text: JSON.stringify would turn a large numeric id into a rounded float.
function withId(id: RpcId | null, payloadJson: string): string {
  const idText = id === null ? 'null' : typeof id === 'string' ? JSON.stringify(id) : id.text;
  return `{"jsonrpc":"2.0","id":${idText},${payloadJson.slice(1)}`;
}

/** requestLine is a request of the server's own to the client, one line of JSON. */
export function requestLine(id: string, method: string, params: unknown): string {
  return JSON.stringify({ jsonrpc: '2.0', id, method, params });
}

/** notificationLine is a notification to the client, one line of JSON. */
export function notificationLine(method: string, params: unknown): string {
  return JSON.stringify({ jsonrpc: '2.0', method, params });
}

/** idKey is a stable key for an id, for matching a cancellation to its request. */
export function idKey(id: RpcId): string {
  return typeof id === 'string' ? `s:${id}` : `n:${id.text}`;
}

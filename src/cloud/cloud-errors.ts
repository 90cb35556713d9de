import { ERROR_RULES, LOCAL_KEY_NOT_RECOGNIZED_REMEDY, isErrorCode } from '../errors/error-rules.js';
import { LatchError } from '../errors/latch-error.js';
import type { CloudResponse } from './cloud-client.js';

const CLOUD_MESSAGE_CHARS_MAX = 300;

/**
 * errorFromCloud turns a cloud error response into a LatchError. The cloud's own code passes
 * through when it is one of ours (docs/decisions.md §7 rule 2); the cloud's device_key_not_recognized becomes
 * local_key_not_recognized with the reconnect remedy; 5xx and unknown answers become
 * upstream_unavailable.
 */
export function errorFromCloud(response: CloudResponse): LatchError {
  const body = parseJsonLoosely(response.rawBody);
  const error = typeof body === 'object' && body !== null ? (body as Record<string, unknown>)['error'] : undefined;
  const fields = typeof error === 'object' && error !== null ? (error as Record<string, unknown>) : {};
  const code = fields['code'];
  if (response.status >= 500 || !isErrorCode(code)) {
    const status = response.status === 503 || response.status === 504 ? response.status : 502;
    return new LatchError('upstream_unavailable', { status, message: `The cloud API answered HTTP ${response.status}.` });
  }
  const message = typeof fields['message'] === 'string' ? cleanText(fields['message']) : undefined;
  const param = typeof fields['param'] === 'string' ? cleanText(fields['param']).slice(0, 64) : undefined;
  // Only the request's own signing key unknown to the cloud means this device's key diverged.
  // The same code with a param (a JWS whose kid is another account's key) is about the payload
  // the caller sent, and telling the user to replace a healthy key would be wrong.
  if (code === 'device_key_not_recognized' && param === undefined) return localKeyNotRecognized();
  try {
    return new LatchError(code, { ...(message !== undefined && { message }), ...(param !== undefined && { param }), status: response.status });
  } catch {
    // The cloud used one of our codes with a status the table does not allow; keep our status.
    return new LatchError(code, { ...(message !== undefined && { message }), ...(param !== undefined && { param }) });
  }
}

/**
 * localKeyNotRecognized is the "Local key not recognized" error class (docs/errors.md). Its message carries the
 * remedy, because the caller seeing it (an agent, a script) must tell the user to reconnect.
 */
export function localKeyNotRecognized(): LatchError {
  return new LatchError('local_key_not_recognized', { message: `${ERROR_RULES.local_key_not_recognized.message} ${LOCAL_KEY_NOT_RECOGNIZED_REMEDY}` });
}

/** cloudJson parses a successful cloud answer, or fails as upstream_unavailable. */
export function cloudJson(response: CloudResponse): Record<string, unknown> {
  const body = parseJsonLoosely(response.rawBody);
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw unexpectedShape();
  return body as Record<string, unknown>;
}

/** unexpectedShape is the error for a cloud answer that does not have the agreed shape. */
export function unexpectedShape(): LatchError {
  return new LatchError('upstream_unavailable', { status: 502, message: 'The cloud API answered with an unexpected shape.' });
}

function parseJsonLoosely(bytes: Uint8Array): unknown {
  try {
    return JSON.parse(Buffer.from(bytes).toString('utf8'));
  } catch {
    return undefined;
  }
}

/** Cloud text is shown to callers; strip control characters and bound its length. */
function cleanText(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f]/g, ' ').slice(0, CLOUD_MESSAGE_CHARS_MAX);
}

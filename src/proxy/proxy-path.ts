import { LatchError } from '../errors/latch-error.js';

/**
 * checkProxyPath refuses any request target that could leave `/v1/` or the cloud origin once a
 * URL parser or the upstream normalizes it: dot segments (also percent-encoded, in any case),
 * empty segments (`//host`), backslashes, encoded slashes or backslashes, and control characters.
 * Refusing is safer than normalizing: what the caller sent is exactly what is signed.
 */
export function checkProxyPath(path: string, rawQuery: string): void {
  const refuse = (): never => {
    throw new LatchError('invalid_request', { param: 'path', message: 'The proxied path must be a plain path under /v1/.' });
  };
  if (!path.startsWith('/v1/') || path.length > 2048 || rawQuery.length > 4096) refuse();
  if (/[\\\u0000-\u001f\u007f]/.test(path + rawQuery) || /%(?:2f|5c|00)/i.test(path)) refuse();
  const segments = path.slice(1).split('/');
  for (const segment of segments) {
    if (segment === '') refuse();
    if (/^(?:\.|%2e){1,2}$/i.test(segment)) refuse();
  }
}

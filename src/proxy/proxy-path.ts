import { LatchError } from '../errors/latch-error.js';

/**
 * checkProxyPath refuses any request target that is not a plain, canonical path under `/v1/`:
 * any percent-escape (`%61uthorizations` would be `authorizations` to a cloud that decodes, and
 * `%2e%2e` a dot segment), dot segments, empty segments (`//host`), backslashes and control
 * characters. Refusing is safer than normalizing: what the caller sent is exactly what is signed,
 * and no upstream can read it as another path (docs/decisions.md §29.1). The query may carry
 * escapes (a cursor, a card id), but no control characters.
 */
export function checkProxyPath(path: string, rawQuery: string): void {
  const refuse = (): never => {
    throw new LatchError('invalid_request', { param: 'path', message: 'The proxied path must be a plain path under /v1/, with no percent-escapes.' });
  };
  if (!path.startsWith('/v1/') || path.length > 2048 || rawQuery.length > 4096) refuse();
  if (/[\\%#\u0000-\u001f\u007f]/.test(path) || /[\\#\u0000-\u001f\u007f]/.test(rawQuery)) refuse();
  const segments = path.slice(1).split('/');
  for (const segment of segments) {
    if (segment === '' || segment === '.' || segment === '..') refuse();
  }
}

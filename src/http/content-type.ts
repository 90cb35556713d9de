// `application/json`, optionally with `charset=utf-8` (the only charset JSON has, RFC 8259 §8.1).
const JSON_MEDIA_TYPE = /^application\/json[ \t]*(?:;[ \t]*charset[ \t]*=[ \t]*(?:utf-8|"utf-8")[ \t]*)?$/i;

/**
 * isJsonContentType reports whether a Content-Type value is `application/json`, with at most a
 * `charset=utf-8` parameter. Anything else, `text/plain` above all (the content type a browser
 * may send cross-site without a preflight), is refused.
 */
export function isJsonContentType(value: string | undefined): boolean {
  return value !== undefined && JSON_MEDIA_TYPE.test(value);
}

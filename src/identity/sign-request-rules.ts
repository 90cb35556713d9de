/**
 * The fields of POST /web-bot-auth/sign and of the MCP tool latch_sign_web_request, written once
 * (docs/decisions.md §23.3): the daemon validates with these rules and the tool's input schema is
 * built from them.
 */
import { invalidRequest } from '../errors/latch-error.js';
import { isJsonObject, type JsonValue } from '../json/parse-json.js';
import { int, oneOf, str, type FieldRule } from '../validate/schema.js';
import { textJsonSchema } from '../validate/rule-json-schema.js';
import { URL_CHARS_MAX } from './target-url.js';
import { WEB_SIGNATURE_TAGS } from './web-bot-auth.js';

/** An HTTP method is a token (RFC 9110 §9.1); Latch takes at most 32 characters of it. */
const METHOD_TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,32}$/;
/** An RFC 9530 Content-Digest of one or two sha-256 / sha-512 members. */
const DIGEST_MEMBER = 'sha-(?:256=:[A-Za-z0-9+/]{43}=|512=:[A-Za-z0-9+/]{86}==):';
const CONTENT_DIGEST = new RegExp(`^${DIGEST_MEMBER}(?:, ?${DIGEST_MEMBER})?$`);
const CONTENT_DIGEST_CHARS_MAX = 256;

/** The one header a caller may give: its name, and the rule of its value. */
export const SIGNABLE_HEADER = 'content-digest';
const contentDigestText = { pattern: CONTENT_DIGEST, maxLength: CONTENT_DIGEST_CHARS_MAX, describe: 'an RFC 9530 Content-Digest such as sha-256=:…: (sha-256 or sha-512)' };
const contentDigestRule = str(contentDigestText);

/** The headers object: only `content-digest` (any case), whose value must be a Content-Digest. */
export function signableHeaders(): FieldRule<{ contentDigest?: string }, 'optional'> {
  const fromJson = (value: JsonValue, param: string): { contentDigest?: string } => {
    if (!isJsonObject(value)) throw invalidRequest(param, `${param} must be an object of header names to values.`);
    let contentDigest: string | undefined;
    for (const [name, headerValue] of Object.entries(value)) {
      if (name.toLowerCase() !== SIGNABLE_HEADER) throw invalidRequest(param, `${param} may hold only content-digest; Latch signs no other header the caller gives.`);
      if (contentDigest !== undefined) throw invalidRequest(param, `${param} names content-digest twice.`);
      contentDigest = contentDigestRule.fromJson(headerValue, `${param}.${SIGNABLE_HEADER}`);
    }
    return contentDigest === undefined ? {} : { contentDigest };
  };
  return {
    presence: 'optional',
    defaultValue: undefined,
    fromJson,
    fromQuery: (_text, param) => {
      throw invalidRequest(param, `${param} is not a query parameter.`);
    },
    jsonSchema: { type: 'object', properties: { [SIGNABLE_HEADER]: textJsonSchema(contentDigestText, CONTENT_DIGEST_CHARS_MAX) }, additionalProperties: false },
  };
}

/** The rules of a request to sign. */
export const signWebRequestRules = {
  method: str({ required: true, pattern: METHOD_TOKEN, maxLength: 32, describe: 'an HTTP method such as GET or POST' }),
  url: str({ required: true, maxLength: URL_CHARS_MAX }),
  headers: signableHeaders(),
  tag: oneOf(WEB_SIGNATURE_TAGS, { default: 'web-bot-auth' }),
  expires_in_seconds: int({ min: 1, max: 480, default: 60 }),
};

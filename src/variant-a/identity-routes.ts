/**
 * Variant A's agent identity routes (docs/decisions.md §23): POST /web-bot-auth/sign signs a
 * request the caller is about to send, as the caller; GET /web-bot-auth/directory is the public
 * key directory of this device's agents; GET /web-bot-auth/keys/:name (the owner's) is one holder's
 * key id and public JWK, for the owner who cannot read the daemon's files (docs/decisions.md §30).
 * Each validates its wire shape and calls one operation.
 */
import { AGENT_NAME_PATTERN } from '../datadir/agents.js';
import { LatchError } from '../errors/latch-error.js';
import { OWNER_IDENTITY } from '../signer/key-admin.js';
import { validateQuery } from '../validate/schema.js';
import type { IdentityOperations } from '../identity/identity-operations.js';
import { signWebRequestRules } from '../identity/sign-request-rules.js';
import { checkTargetUrl } from '../identity/target-url.js';
import { callerOf } from '../http/caller-of.js';
import type { RouteHandler } from '../http/route.js';
import { validateBody } from '../validate/schema.js';

/** The handlers of A's identity routes. */
export interface IdentityHandlers {
  sign: RouteHandler;
  directory: RouteHandler;
  key: RouteHandler;
}

/** identityHandlers returns A's handlers of the identity routes. */
export function identityHandlers(identity: IdentityOperations): IdentityHandlers {
  return {
    sign: async (request) => {
      const input = validateBody(request.body, signWebRequestRules);
      const target = checkTargetUrl(input.url);
      const result = await identity.signWebRequest(
        {
          method: input.method,
          target,
          ...(input.headers?.contentDigest !== undefined && { contentDigest: input.headers.contentDigest }),
          tag: input.tag,
          expiresInSeconds: input.expires_in_seconds,
        },
        { principal: callerOf(request), requestId: request.requestId, userAgent: request.userAgent },
      );
      return { status: 200, body: { headers: result.headers, key_id: result.keyId, created: result.created, expires: result.expires } };
    },
    directory: (request) => {
      // The front door admitted this Host; the signatures bind the directory to it.
      const authority = String(request.headers.host ?? '');
      const signed = identity.directory(authority);
      return { status: 200, rawBody: signed.body, headers: signed.headers };
    },
    key: (request) => {
      validateQuery(request.query, {});
      const shown = identity.publicKey(holderParam(request.params['name']));
      return { status: 200, body: { name: shown.holder, key_id: shown.keyId, jwk: shown.jwk } };
    },
  };
}

/** holderParam is `owner` or an agent's name; any other text is an agent that does not exist. */
function holderParam(value: string | undefined): string {
  const text = value ?? '';
  if (text !== OWNER_IDENTITY && !AGENT_NAME_PATTERN.test(text)) throw new LatchError('agent_not_found');
  return text;
}

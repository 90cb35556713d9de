/**
 * Variant A's routes over the authorizations this device signed (docs/decisions.md §15.2): the list,
 * one authorization, and its cancellation. Each answer is the A authorization object plus the
 * `agent` that asked for it.
 */
import { AUTHORIZATION_STATUSES, REQUEST_KINDS, X402_STATES } from '../core/model.js';
import type { AuthorizationListOperations, OwnedAuthorization } from '../operations/authorization-list.js';
import type { RouteHandler } from '../http/route.js';
import { AGENT_NAME_PATTERN } from '../datadir/agents.js';
import { CARD_ID_PATTERN, LEDGER_ID_PATTERN, wireIdWords } from '../ids/wire-ids.js';
import { int, oneOf, str, validateBody, validateQuery } from '../validate/schema.js';
import { LatchError } from '../errors/latch-error.js';
import { ok, operationContext } from '../variant-common/operation-context.js';
import { authorizationA } from './shapes.js';
import { x402EntryWire } from '../x402/x402-wire.js';

const listRules = {
  limit: int({ min: 1, max: 100, default: 20 }),
  starting_after: str({ pattern: LEDGER_ID_PATTERN, describe: `${wireIdWords('pw')} or ${wireIdWords('xa')}` }),
  // The cloud's statuses of a window, and the x402 states (docs/x402.md).
  status: oneOf([...AUTHORIZATION_STATUSES, ...X402_STATES.filter((state) => !(AUTHORIZATION_STATUSES as readonly string[]).includes(state))]),
  kind: oneOf(REQUEST_KINDS),
  card_id: str({ pattern: CARD_ID_PATTERN, describe: wireIdWords('card') }),
  agent: str({ pattern: AGENT_NAME_PATTERN, describe: 'an agent name (or owner)' }),
};

const cancelRules = { reason: str({ maxLength: 200 }) };

/** The handlers of the three routes. */
export interface AuthorizationHandlers {
  list: RouteHandler;
  get: RouteHandler;
  cancel: RouteHandler;
}

/**
 * ownedAuthorizationA is the A authorization object with the caller that asked for it, and
 * `registered: false` on a window the cloud does not hold (docs/decisions.md §17.1).
 */
export function ownedAuthorizationA(owned: OwnedAuthorization): Record<string, unknown> {
  // An x402 payment has no window: it is shown by its own wire (docs/x402.md).
  if (owned.x402 !== undefined) return x402EntryWire(owned.x402);
  return {
    ...authorizationA(owned.authorization),
    // The card window of AP2 open mandates is listed as what was asked for (docs/ap2.md).
    ...(owned.mandateId !== undefined && { kind: 'ap2_mandate', mandate_id: owned.mandateId }),
    agent: owned.agent,
    ...(owned.registered === false && { registered: false }),
  };
}

/** authorizationHandlers maps the three routes to the core's listing operations. */
export function authorizationHandlers(operations: AuthorizationListOperations): AuthorizationHandlers {
  return {
    list: async (request) => {
      const query = validateQuery(request.query, listRules);
      const page = await operations.listAuthorizations(
        { limit: query.limit, startingAfter: query.starting_after, status: query.status, cardId: query.card_id, agent: query.agent, kind: query.kind },
        operationContext(request),
      );
      return ok({ authorizations: page.authorizations.map(ownedAuthorizationA), has_more: page.hasMore });
    },
    get: async (request) => {
      validateQuery(request.query, {});
      return ok(ownedAuthorizationA(await operations.getAuthorization(policyIdParam(request.params['policy_id']), operationContext(request))));
    },
    cancel: async (request) => {
      validateQuery(request.query, {});
      const input = validateBody(request.body ?? {}, cancelRules);
      const cancelled = await operations.cancelAuthorization(policyIdParam(request.params['policy_id']), input.reason, operationContext(request));
      // AP2 has no revocation of a mandate already handed out: its exp is its only bound (docs/ap2.md).
      return ok({ ...ownedAuthorizationA(cancelled), ...(cancelled.mandateId !== undefined && { mandate_revocable: false }) });
    },
  };
}

/** A malformed id in the path is a missing authorization, like an unknown one. */
function policyIdParam(value: string | undefined): string {
  const text = value ?? '';
  if (!LEDGER_ID_PATTERN.test(text)) throw new LatchError('authorization_not_found');
  return text;
}

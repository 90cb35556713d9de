/**
 * Variant A's AP2 routes (shared/spec/ap2-mandates.md, docs/ap2.md): GET /ap2/jwks, the public
 * keys of the trusted surface, and POST /ap2/mandates, an agent's open mandates through the one
 * authorization pipeline. Each validates its wire shape and calls one operation.
 */
import type { MandateJwks } from '../ap2/mandate-jwks.js';
import { mandatesWire } from '../ap2/mandate-wire.js';
import type { Ap2MandateResult } from '../variant-common/ap2-mandate-operation.js';
import type { Ap2MandateRequest } from '../core/authorization-request.js';
import type { OperationContext } from '../core/core-deps.js';
import type { RouteHandler } from '../http/route.js';
import { ap2MandateRules, mandateRecurrence } from '../requests/ap2-mandate-rules.js';
import { validateBody, validateQuery, type Validated } from '../validate/schema.js';
import { pendingAnswer } from '../variant-common/approval-shape.js';
import { operationContext } from '../variant-common/operation-context.js';

/** What A's AP2 routes call. */
export interface Ap2Operations {
  /** The mandate JWKS: the current key first, then retired keys whose mandates may not have expired. */
  jwks(): MandateJwks;
  /** An agent's open mandates, through the authorization pipeline. */
  requestMandates(request: Ap2MandateRequest, context: OperationContext): Promise<Ap2MandateResult>;
}

/** The handlers of A's AP2 routes. */
export interface Ap2Handlers {
  jwks: RouteHandler;
  mandates: RouteHandler;
}

/** ap2MandateRequest maps the validated body to the core's request. */
export function ap2MandateRequest(input: Validated<typeof ap2MandateRules>): Ap2MandateRequest {
  const recurrence = mandateRecurrence(input);
  return {
    kind: 'ap2_mandate',
    cardId: input.card_id,
    merchant: input.merchant.host,
    amountMinor: input.amount_max,
    currency: input.currency,
    ttlSeconds: input.ttl_minutes * 60,
    mandate: { merchant: input.merchant.ap2, lines: input.items, agentKey: input.agent_key, ...(recurrence !== undefined && { recurrence }) },
  };
}

/** ap2Handlers returns A's handlers of the AP2 routes. */
export function ap2Handlers(operations: Ap2Operations): Ap2Handlers {
  return {
    jwks: (request) => {
      validateQuery(request.query, {});
      return { status: 200, body: operations.jwks() };
    },
    mandates: async (request) => {
      validateQuery(request.query, {});
      const input = validateBody(request.body, ap2MandateRules);
      const result = await operations.requestMandates(ap2MandateRequest(input), operationContext(request));
      switch (result.outcome) {
        case 'created':
          return { status: 201, body: mandatesWire(result.authorization.policyId, result.mandates) };
        case 'approval_pending':
          return pendingAnswer(result.approval, Math.floor(Date.now() / 1000));
      }
    },
  };
}

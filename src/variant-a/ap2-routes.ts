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
import type { MandateContext } from '../operations/ap2-mandate-context.js';
import { isWireId, wireIdWords } from '../ids/wire-ids.js';
import { invalidRequest } from '../errors/latch-error.js';
import { isoSeconds } from '../time/iso-time.js';

/** What A's AP2 routes call. */
export interface Ap2Operations {
  /** The mandate JWKS: the current key first, then retired keys whose mandates may not have expired. */
  jwks(): MandateJwks;
  /** An agent's open mandates, through the authorization pipeline. */
  requestMandates(request: Ap2MandateRequest, context: OperationContext): Promise<Ap2MandateResult>;
  /** The spend so far under one mandate (AP2's MandateContext), for the agent that asked or the owner. */
  mandateContext(mandateId: string, context: OperationContext): Promise<MandateContext>;
}

/** The handlers of A's AP2 routes. */
export interface Ap2Handlers {
  jwks: RouteHandler;
  mandates: RouteHandler;
  context: RouteHandler;
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
    context: async (request) => {
      validateQuery(request.query, {});
      const mandateId = request.params['mandate_id'] ?? '';
      if (!isWireId('md', mandateId)) throw invalidRequest('mandate_id', `mandate_id must be ${wireIdWords('md')}.`);
      const found = await operations.mandateContext(mandateId, operationContext(request));
      // AP2's MandateContext: total_amount in minor units as AP2's amounts are; last_at as Latch's times are.
      return { status: 200, body: { total_amount: found.totalMinor, currency: found.currency, occurrences: found.occurrences, last_at: found.lastAtSeconds === null ? null : isoSeconds(found.lastAtSeconds) } };
    },
  };
}

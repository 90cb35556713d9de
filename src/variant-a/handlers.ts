/**
 * Variant A's handlers other than /health and the proxy: each validates the wire shape, builds
 * one core request value, calls one core operation, and maps the result back. No business rule
 * lives here.
 */
import type { MerchantVerificationRequest, OneTimeRequest, RecurringRequest } from '../core/authorization-request.js';
import type { CoreOperations } from '../operations/operations.js';
import type { RouteHandler } from '../http/route.js';
import { validateBody, type Validated } from '../validate/schema.js';
import { authorizationAnswer, ok, operationContext } from '../variant-common/operation-context.js';
import { accountWindowRules, authorizeRules, merchantBindRules, recurringRules, revocationRules } from '../requests/request-rules.js';
import { authorizationA } from './shapes.js';

/** oneTimeRequest maps A's validated /authorize fields (also /sign-card-policy-window, /policy/check) to the core's request. */
export function oneTimeRequest(input: Validated<typeof authorizeRules>): OneTimeRequest {
  return {
    kind: 'one_time',
    cardId: input.card_id,
    merchant: input.merchant_name,
    amountMinor: input.amount,
    currency: input.currency,
    authorizationType: input.authorization_type,
    ttlSeconds: input.ttl_minutes * 60,
    ...(input.reference !== undefined && { reference: input.reference }),
  };
}

/** merchantVerificationRequest maps A's validated /merchant-bind fields to the core's request. */
export function merchantVerificationRequest(input: Validated<typeof merchantBindRules>): MerchantVerificationRequest {
  return {
    kind: 'merchant_verification',
    cardId: input.card_id,
    merchant: input.merchant_name,
    amountMinor: input.amount,
    currency: input.currency,
    ttlSeconds: input.ttl_minutes * 60,
    ...(input.reference !== undefined && { reference: input.reference }),
  };
}

/** recurringRequest maps A's validated /recurring fields to the core's request. */
export function recurringRequest(input: Validated<typeof recurringRules>): RecurringRequest {
  return {
    kind: 'recurring',
    cardId: input.card_id,
    merchant: input.merchant_name,
    amountMinor: input.amount,
    currency: input.currency,
    authorizationType: input.authorization_type,
    interval: input.interval,
    intervalCount: input.interval_count,
    startsAt: input.starts_at ?? null,
    endsAt: input.ends_at ?? null,
    maxCharges: input.max_charges ?? null,
    ...(input.reference !== undefined && { reference: input.reference }),
  };
}

/** The core operations Variant A's signing and authorization handlers call. */
export type SigningOperations = Pick<CoreOperations, 'requestAuthorization' | 'signCardWindow' | 'signAccountWindow' | 'signRevocation'>;

/** The handlers of A's authorization and signing routes. */
export interface SigningHandlers {
  authorize: RouteHandler;
  merchantBind: RouteHandler;
  recurring: RouteHandler;
  signCardPolicyWindow: RouteHandler;
  signPolicyWindow: RouteHandler;
  signRevocation: RouteHandler;
}

/** signingHandlers returns A's handlers of the routes that sign something. */
export function signingHandlers(operations: SigningOperations): SigningHandlers {
  const answer = (result: Parameters<typeof authorizationAnswer>[0]) => authorizationAnswer(result, (created) => authorizationA(created.authorization));
  return {
    authorize: async (request) => {
      const input = validateBody(request.body, authorizeRules);
      return answer(await operations.requestAuthorization(oneTimeRequest(input), operationContext(request)));
    },
    merchantBind: async (request) => {
      const input = validateBody(request.body, merchantBindRules);
      return answer(await operations.requestAuthorization(merchantVerificationRequest(input), operationContext(request)));
    },
    recurring: async (request) => {
      const input = validateBody(request.body, recurringRules);
      return answer(await operations.requestAuthorization(recurringRequest(input), operationContext(request)));
    },
    signCardPolicyWindow: async (request) => {
      const input = validateBody(request.body, authorizeRules);
      const signed = await operations.signCardWindow(oneTimeRequest(input), operationContext(request));
      return ok({ policy_window: signed.payload, jws: signed.jws, key_id: signed.keyId });
    },
    signPolicyWindow: async (request) => {
      const input = validateBody(request.body, accountWindowRules);
      const signed = await operations.signAccountWindow(
        { merchant: input.merchant_name, amountMinor: input.amount, currency: input.currency, authorizationType: input.authorization_type, ttlSeconds: input.ttl_minutes * 60 },
        operationContext(request),
      );
      return ok({ policy_window: signed.payload, jws: signed.jws, key_id: signed.keyId });
    },
    signRevocation: async (request) => {
      const input = validateBody(request.body, revocationRules);
      const signed = await operations.signRevocation(input.policy_id, input.reason, operationContext(request));
      return ok({ revocation: signed.payload, jws: signed.jws, key_id: signed.keyId });
    },
  };
}

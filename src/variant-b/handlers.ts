/**
 * Variant B's /authorize handler, on the compatibility listener: a thin mapping of the same core
 * operation Variant A uses; only field names, money type and ttl syntax differ.
 */
import type { CoreOperations } from '../operations/operations.js';
import type { RouteHandler } from '../http/route.js';
import { AUTHORIZATION_AMOUNT_MAX_MINOR } from '../money/amount.js';
import { cardIdField, currencyField, merchantField } from '../requests/common-fields.js';
import { parseTtlString } from '../validate/ttl.js';
import { amount, parsedStr, validateBody } from '../validate/schema.js';
import { authorizationAnswer, operationContext } from '../variant-common/operation-context.js';
import { authorizationResultB } from './shapes.js';

/** B's /authorize: card_id, amount and merchant are required; currency defaults to USD, ttl to 30m. */
export const authorizeRulesB = {
  card_id: cardIdField(),
  amount: amount({ required: true, maxMinor: AUTHORIZATION_AMOUNT_MAX_MINOR }),
  merchant: merchantField(),
  currency: currencyField(),
  ttl: parsedStr(parseTtlString, { default: 30 * 60 }),
};

/** authorizeHandlerB is B's POST /authorize: always a one-time exact authorization. */
export function authorizeHandlerB(operations: Pick<CoreOperations, 'requestAuthorization'>): RouteHandler {
  return async (request) => {
    const input = validateBody(request.body, authorizeRulesB);
    const result = await operations.requestAuthorization(
      { kind: 'one_time', cardId: input.card_id, merchant: input.merchant, amountMinor: input.amount, currency: input.currency, authorizationType: 'exact', ttlSeconds: input.ttl },
      operationContext(request),
    );
    return authorizationAnswer(result, authorizationResultB);
  };
}

/**
 * Variant B's routes other than /health, on the compatibility listener. Each is a thin mapping of
 * the same core operation Variant A uses; only field names, money type and ttl syntax differ.
 */
import { authorize } from '../core/authorizations.js';
import type { CoreDeps } from '../core/core-deps.js';
import type { Route } from '../http/route.js';
import { AUTHORIZATION_AMOUNT_MAX_MINOR } from '../money/amount.js';
import { cardIdField, currencyField, merchantField } from '../requests/common-fields.js';
import { parseTtlString } from '../validate/ttl.js';
import { amount, parsedStr, validateBody } from '../validate/schema.js';
import { ok, operationContext } from '../variant-common/operation-context.js';
import { allocateRules, readRoutes } from '../variant-common/read-routes.js';
import { allocationB, authorizationResultB, cardDetailB, cardSummaryB, transactionDetailB, transactionSummaryB, walletB } from './shapes.js';

/** B's /authorize: card_id, amount and merchant are required; currency defaults to USD, ttl to 30m. */
export const authorizeRulesB = {
  card_id: cardIdField(),
  amount: amount({ required: true, maxMinor: AUTHORIZATION_AMOUNT_MAX_MINOR }),
  merchant: merchantField(),
  currency: currencyField(),
  ttl: parsedStr(parseTtlString, { default: 30 * 60 }),
};

/** B's /wallet/allocate: the shared rule (card_id and amount, a JSON number or decimal string). */
export const allocateRulesB = allocateRules;

/** variantBApiRoutes returns the B listener's routes after /health. */
export function variantBApiRoutes(deps: CoreDeps): Route[] {
  return [
    {
      method: 'POST',
      pattern: '/authorize',
      auth: 'token',
      handler: async (request) => {
        const input = validateBody(request.body, authorizeRulesB);
        const created = await authorize(
          deps,
          { cardId: input.card_id, merchant: input.merchant, amountMinor: input.amount, currency: input.currency, authorizationType: 'exact', ttlSeconds: input.ttl },
          operationContext(request),
        );
        return ok(authorizationResultB(created));
      },
    },
    ...readRoutes(deps, {
      cardList: (cards) => ({ cards: cards.map(cardSummaryB) }),
      cardDetail: cardDetailB,
      transactionList: (page) => ({ transactions: page.transactions.map(transactionSummaryB) }),
      transactionDetail: transactionDetailB,
      wallet: walletB,
      allocation: allocationB,
    }),
  ];
}

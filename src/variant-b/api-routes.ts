/**
 * Variant B's routes other than /health, on the compatibility listener. Each is a thin mapping of
 * the same core operation Variant A uses; only field names, money type and ttl syntax differ.
 */
import { authorize } from '../core/authorizations.js';
import type { CoreDeps } from '../core/core-deps.js';
import { allocate, getCard, getTransaction, getWallet, listCards, listTransactions } from '../core/reads.js';
import type { Route } from '../http/route.js';
import { AUTHORIZATION_AMOUNT_MAX_MINOR } from '../money/amount.js';
import { cardIdField, checkCardIdParam, checkTransactionIdParam, currencyField, merchantField } from '../requests/common-fields.js';
import { parseTtlString } from '../validate/ttl.js';
import { amount, parsedStr, validateBody, validateQuery } from '../validate/schema.js';
import { operationContext } from '../variant-a/api-routes.js';
import { transactionQueryRules } from '../variant-a/requests.js';
import { allocationB, authorizationResultB, cardDetailB, cardSummaryB, transactionDetailB, transactionSummaryB, walletB } from './shapes.js';

/** B's /authorize: card_id, amount and merchant are required; currency defaults to USD, ttl to 30m. */
export const authorizeRulesB = {
  card_id: cardIdField(),
  amount: amount({ required: true, maxMinor: AUTHORIZATION_AMOUNT_MAX_MINOR }),
  merchant: merchantField(),
  currency: currencyField(),
  ttl: parsedStr(parseTtlString, { default: 30 * 60 }),
};

/** B's /wallet/allocate: card_id and amount (a JSON number or decimal string) are required. */
export const allocateRulesB = {
  card_id: cardIdField(),
  amount: amount({ required: true, maxMinor: AUTHORIZATION_AMOUNT_MAX_MINOR * 100 }),
};

const ok = (body: unknown) => ({ status: 200, body });

/** variantBApiRoutes returns the B listener's routes after /health. */
export function variantBApiRoutes(deps: CoreDeps): Route[] {
  return [
    {
      method: 'GET',
      pattern: '/cards',
      auth: 'token',
      handler: async (request) => {
        validateQuery(request.query, {});
        return ok({ cards: (await listCards(deps, operationContext(request))).map(cardSummaryB) });
      },
    },
    {
      method: 'GET',
      pattern: '/cards/:card_id',
      auth: 'token',
      handler: async (request) => {
        validateQuery(request.query, {});
        return ok(cardDetailB(await getCard(deps, checkCardIdParam(request.params['card_id'] ?? ''), operationContext(request))));
      },
    },
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
    {
      method: 'GET',
      pattern: '/transactions',
      auth: 'token',
      handler: async (request) => {
        const query = validateQuery(request.query, transactionQueryRules);
        const page = await listTransactions(
          deps,
          { limit: query.limit, startingAfter: query.starting_after, cardId: query.card_id, status: query.status },
          operationContext(request),
        );
        return ok({ transactions: page.transactions.map(transactionSummaryB) });
      },
    },
    {
      method: 'GET',
      pattern: '/transactions/:tx_id',
      auth: 'token',
      handler: async (request) => {
        validateQuery(request.query, {});
        return ok(transactionDetailB(await getTransaction(deps, checkTransactionIdParam(request.params['tx_id'] ?? ''), operationContext(request))));
      },
    },
    {
      method: 'GET',
      pattern: '/wallet/balance',
      auth: 'token',
      handler: async (request) => {
        validateQuery(request.query, {});
        return ok(walletB(await getWallet(deps, operationContext(request))));
      },
    },
    {
      method: 'POST',
      pattern: '/wallet/allocate',
      auth: 'token',
      handler: async (request) => {
        const input = validateBody(request.body, allocateRulesB);
        return ok(allocationB(await allocate(deps, input.card_id, input.amount, operationContext(request))));
      },
    },
  ];
}
